import { defineFamily } from '../../family.ts';
import { passkeyRoutes } from './routes.ts';
import { createPasskeyService } from './service.ts';

export default defineFamily({
  name: 'directory/passkeys',
  register: async (app, { pool }) => {
    passkeyRoutes(app, createPasskeyService(pool));
  },
});
