import { defineFamily } from '../../family.ts';
import { clientAllowlistRoutes } from './routes.ts';
import { createClientAllowlistService } from './service.ts';

export default defineFamily({
  name: 'oidc/client-allowlist',
  register: (app, { pool }) => clientAllowlistRoutes(app, createClientAllowlistService(pool)),
});
