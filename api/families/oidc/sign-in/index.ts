import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { createCsrf } from './csrf.ts';
import { createInteractions } from './interaction.ts';
import { signInRoutes } from './routes.ts';
import { createSignInService } from './service.ts';
import { signUpRoutes } from './sign-up-routes.ts';
import { resetRoutes } from './reset-routes.ts';
import { createPasswordResetService } from './password-reset.ts';
import { createSignUpService } from './sign-up.ts';
import { createPasskeyPages } from './passkey-routes.ts';
import { createPasskeyCeremonies } from '../../../passkeys/index.ts';

export default defineFamily({
  name: 'oidc/sign-in',
  register: async (app, { pool, oidc, masterKey, config, sender }) => {
    // The pages' forms post form-encoded bodies; the parser stays inside this family.
    await app.register(formbody);
    const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/$/, '');
    const csrf = createCsrf(masterKey);
    const interactions = createInteractions({ oidc, csrf, basePath });
    const signIn = createSignInService(pool, csrf);
    const passkeys = createPasskeyPages({ pool, ceremonies: createPasskeyCeremonies(pool, config.publicBaseUrl), interactions, signIn, csrf });
    signInRoutes(app, { interactions, signIn, passkeys });
    passkeys.routes(app);
    signUpRoutes(app, { interactions, signIn, passkeys, signUp: createSignUpService(pool, sender, app.log) });
    resetRoutes(app, { interactions, signIn, reset: createPasswordResetService({ pool, sender, publicBaseUrl: config.publicBaseUrl, log: app.log }) });
  },
});
