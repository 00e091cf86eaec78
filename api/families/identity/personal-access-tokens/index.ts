import { defineFamily } from '../../family.ts';
import { personalAccessTokenRoutes } from './routes.ts';
import { createPersonalAccessTokenService } from './service.ts';

export default defineFamily({
  name: 'identity/personal-access-tokens',
  register: (app, { pool }) => personalAccessTokenRoutes(app, createPersonalAccessTokenService(pool)),
});
