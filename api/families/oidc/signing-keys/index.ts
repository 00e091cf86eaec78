import { defineFamily } from '../../family.ts';
import { oidcSigningKeyRoutes } from './routes.ts';
import { createOidcSigningKeyService } from './service.ts';

export default defineFamily({
  name: 'oidc/signing-keys',
  register: (app, { pool, masterKey }) => oidcSigningKeyRoutes(app, createOidcSigningKeyService(pool, masterKey)),
});
