import { defineFamily } from '../../family.ts';
import { signingKeyRoutes } from './routes.ts';
import { createSigningKeyService } from './service.ts';

export default defineFamily({
  name: 'identity/signing-keys',
  register: (app, { pool, keys }) => signingKeyRoutes(app, createSigningKeyService(pool, keys)),
});
