import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { createCsrf } from './csrf.ts';
import { createInteractions } from './interaction.ts';
import { signInRoutes } from './routes.ts';
import { createSignInService } from './service.ts';

export default defineFamily({
  name: 'oidc/sign-in',
  register: async (app, { pool, oidc, masterKey, config }) => {
    // The pages' forms post form-encoded bodies; the parser stays inside this family.
    await app.register(formbody);
    const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/$/, '');
    const csrf = createCsrf(masterKey);
    const interactions = createInteractions({ oidc, csrf, basePath });
    signInRoutes(app, { interactions, signIn: createSignInService(pool, csrf) });
  },
});
