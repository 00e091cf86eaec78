import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { createCsrf } from './csrf.ts';
import { createInteractions } from './interaction.ts';
import { signInRoutes } from './routes.ts';
import { createSignInService } from './service.ts';
import { createHomeRealm } from './home-realm.ts';
import { signUpRoutes } from './sign-up-routes.ts';
import { resetRoutes } from './reset-routes.ts';
import { createPasswordResetService } from './password-reset.ts';
import { createSignUpService } from './sign-up.ts';
import { emailCodeRoutes } from './email-code-routes.ts';
import { createEmailCodeService } from '../../../email-codes/service.ts';
import { createPasskeyPages } from './passkey-routes.ts';
import { createPasskeyCeremonies } from '../../../passkeys/index.ts';
import { createMfaService } from '../../../mfa/index.ts';
import { mfaRoutes } from './mfa-routes.ts';
import { createSecondFactor } from './second-factor.ts';
import { mfaEmailRoutes } from './mfa-email-routes.ts';
import { createEmailSecondFactor } from '../../../email-codes/second-factor.ts';
import { mfaSmsRoutes } from './mfa-sms-routes.ts';
import { createSmsSecondFactor } from '../../../sms-codes/second-factor.ts';
import { ssoContinueRoutes } from './sso-continue-routes.ts';
import { createProtections } from '../../../protections/index.ts';
import { createKnownDevices } from '../../../protections/known-devices.ts';

export default defineFamily({
  name: 'oidc/sign-in',
  register: async (app, { pool, oidc, masterKey, config, sender, passwordPolicy, protectionTimings, metrics }) => {
    // The pages' forms post form-encoded bodies; the parser stays inside this family.
    await app.register(formbody);
    const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/$/, '');
    const csrf = createCsrf(masterKey);
    const interactions = createInteractions({ oidc, csrf, basePath });
    const homeRealm = createHomeRealm(pool);
    const signIn = createSignInService(pool, csrf, homeRealm, metrics.signIn);
    const devices = createKnownDevices({ pool, masterKey, publicBaseUrl: config.publicBaseUrl });
    const passkeys = createPasskeyPages({ pool, ceremonies: createPasskeyCeremonies(pool, config.publicBaseUrl), interactions, signIn, csrf, devices });
    const mfa = createMfaService(pool, masterKey);
    const secure = config.publicBaseUrl.startsWith('https:');
    const emailSecondFactor = createEmailSecondFactor({ pool, sender, log: app.log });
    // After the second factor (or without one), the "create a passkey" step, then back to the client.
    const second = createSecondFactor({
      pool,
      mfa,
      signIn,
      interactions,
      issuerPathOf: (envId) => `${basePath}/v1/oidc/${envId}`,
      secure,
      emailCodes: emailSecondFactor,
      devices,
      // An SSO sign-in (amr fed) is not offered a passkey: it would sign the user in without the identity provider.
      // Its steps save the interaction themselves (api/sso/steps.ts), so the provider reads it again to finish.
      complete: (r, reply, found, login) =>
        login.amr.includes('fed') ? interactions.finish(r, reply, found.provider, { login }) : passkeys.afterSignIn(r, reply, found, login),
    });
    const protections = createProtections({ pool, config, masterKey, timings: protectionTimings });
    signInRoutes(app, { interactions, signIn, homeRealm, second, passkeys, protections, outcomes: metrics.signIn });
    passkeys.routes(app);
    ssoContinueRoutes(app, { pool, interactions, second });
    mfaRoutes(app, { interactions, signIn, second, mfa, masterKey });
    mfaEmailRoutes(app, { interactions, signIn, second, emailCodes: emailSecondFactor });
    mfaSmsRoutes(app, { interactions, signIn, second, sms: createSmsSecondFactor({ pool, sender, masterKey, log: app.log }) });
    signUpRoutes(app, { interactions, signIn, signUp: createSignUpService(pool, sender, app.log), second, passwordPolicy, protections });
    const emailCodes = createEmailCodeService({ pool, sender, publicBaseUrl: config.publicBaseUrl, log: app.log });
    emailCodeRoutes(app, { oidc, interactions, signIn, emailCodes, second, protections });
    resetRoutes(app, {
      interactions,
      signIn,
      reset: createPasswordResetService({ pool, sender, publicBaseUrl: config.publicBaseUrl, log: app.log }),
      protections,
    });
  },
});
