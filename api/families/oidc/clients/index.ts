import { defineFamily } from '../../family.ts';
import { oidcClientRoutes } from './routes.ts';
import { createOidcClientService } from './service.ts';

export default defineFamily({
  name: 'oidc/clients',
  register: (app, { pool, masterKey }) => oidcClientRoutes(app, createOidcClientService({ pool, masterKey })),
});
