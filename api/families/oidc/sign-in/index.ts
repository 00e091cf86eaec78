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
import { createMfaService } from '../../../mfa/index.ts';
import { mfaRoutes } from './mfa-routes.ts';
import { createSecondFactor } from './second-factor.ts';

export default defineFamily({
  name: 'oidc/sign-in',
  register: async (app, { pool, oidc, masterKey, config, sender }) => {
    // The pages' forms post form-encoded bodies; the parser stays inside this family.
    await app.register(formbody);
    const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/$/, '');
    const csrf = createCsrf(masterKey);
    const interactions = createInteractions({ oidc, csrf, basePath });
    const signIn = createSignInService(pool, csrf);
    const mfa = createMfaService(pool, masterKey);
    const secure = config.publicBaseUrl.startsWith('https:');
    const second = createSecondFactor({ pool, mfa, signIn, interactions, issuerPathOf: (envId) => `${basePath}/v1/oidc/${envId}`, secure });
    signInRoutes(app, { interactions, signIn, second });
    mfaRoutes(app, { interactions, signIn, second, mfa, masterKey });
    signUpRoutes(app, { interactions, signIn, signUp: createSignUpService(pool, sender, app.log), second });
    resetRoutes(app, { interactions, signIn, reset: createPasswordResetService({ pool, sender, publicBaseUrl: config.publicBaseUrl, log: app.log }) });
  },
});
