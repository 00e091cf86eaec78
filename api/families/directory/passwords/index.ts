import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { passwordLinkPages } from './link-page.ts';
import { passwordRoutes } from './routes.ts';
import { createPasswordService } from './service.ts';

export default defineFamily({
  name: 'directory/passwords',
  register: async (app, { pool, config, passwordPolicy }) => {
    // The link page is an HTML form: its POST is form-encoded. The parser stays inside this family.
    await app.register(formbody);
    const passwords = createPasswordService(pool, config.publicBaseUrl, passwordPolicy);
    passwordRoutes(app, passwords);
    passwordLinkPages(app, passwords);
  },
});
