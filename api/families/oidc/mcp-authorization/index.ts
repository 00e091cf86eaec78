import { defineFamily } from '../../family.ts';
import { mcpAuthorizationRoutes } from './routes.ts';
import { createMcpAuthorizationService } from './service.ts';

export default defineFamily({
  name: 'oidc/mcp-authorization',
  register: (app, { pool, config }) => mcpAuthorizationRoutes(app, createMcpAuthorizationService({ pool, publicBaseUrl: config.publicBaseUrl })),
});
