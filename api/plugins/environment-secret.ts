// Authentication by environment credential on the runtime routes that declare it: an environment API secret
// (adenv_…) on `config.environmentSecret` routes (AuthZEN at /access/v1, the trust-store runtime), a provisioning
// token on `config.provisioning` routes (adscim_… on SCIM at /v1/scim/v2, adhris_… on HRIS at /v1/hris/v1). The
// credential selects the environment and must serve the route's purpose. Bearer authentication (./auth.ts) leaves
// these routes alone.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { AuthenticationError } from '../access/principals.ts';
import type { SecretPurpose } from '../../lib/secret-purposes.ts';
import type { ProvisioningKind } from '../../db/provisioning/provisioning-tokens/rows.ts';
import type { EnvironmentSecretAuthenticator, EnvironmentSecretPrincipal } from '../access/environment-secrets.ts';
import { presentsWidgetToken, widgetTokenRefused } from '../access/widget-tokens.ts';
import type { SharedWindows } from '../rate-limits/shared-windows.ts';
import { registerCredentialRateLimits, type CredentialRateLimitOptions, type CredentialRateLimits } from './credential-rate-limit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route authenticates with an environment API secret that serves this purpose. */
    environmentSecret?: SecretPurpose;
    /**
     * With `environmentSecret`: the route also takes a management bearer token with the scope its security declares
     * (the FGA API). A token prefixed `adenv_` is checked here, any other by ./auth.ts.
     */
    orBearer?: boolean;
    /** The route authenticates with a provisioning token of this kind (adscim_…: scim, adhris_…: hris). */
    provisioning?: ProvisioningKind;
  }
  interface FastifyRequest {
    environmentSecret: EnvironmentSecretPrincipal | null;
  }
}

/** The OpenAPI security scheme of environment API secrets. */
export const ENVIRONMENT_SECRET = 'environmentSecret';
/** The `security` of an operation authenticated by an environment API secret. */
export const requiresEnvironmentSecret: Record<string, string[]>[] = [{ [ENVIRONMENT_SECRET]: [] }];
/** The OpenAPI security scheme of provisioning tokens. */
export const PROVISIONING_TOKEN = 'provisioningToken';
/** The `security` of an operation authenticated by a provisioning token. */
export const requiresProvisioningToken: Record<string, string[]>[] = [{ [PROVISIONING_TOKEN]: [] }];

const NOUN = { api_secret: 'environment API secret', provisioning_token: 'provisioning token' } as const;

const BEARER = /^Bearer ([A-Za-z0-9_]+)$/i;

/** Whether the request presents an environment API secret (on an `orBearer` route, the other tokens are bearer tokens). */
export const presentsEnvironmentSecret = (request: FastifyRequest) => /^Bearer adenv_/i.test(request.headers.authorization ?? '');

const a = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const unauthorized = (code: string, message: string, attributes = '') =>
  new ApiError(401, code, message, { headers: { 'www-authenticate': `Bearer realm="iam"${attributes}` } });

/** `limits`: counted per credential (./credential-rate-limit.ts); null when rate limiting is off. */
export function registerEnvironmentSecretAuth(app: FastifyInstance, authenticator: EnvironmentSecretAuthenticator, limits: CredentialRateLimits | null) {
  app.decorateRequest('environmentSecret', null);
  // Before validation, so a request without a valid secret learns nothing about its body. A callback hook that
  // answers a cached secret without a promise: this is the hot path of every decision.
  app.addHook('preValidation', (request, reply, done) => {
    const config = request.routeOptions.config;
    const purpose = config.environmentSecret ?? config.provisioning;
    if (!purpose || (config.orBearer && !presentsEnvironmentSecret(request))) return done();
    const expected = config.environmentSecret ? 'api_secret' : 'provisioning_token';
    const example = config.environmentSecret ? 'adenv_…' : `ad${purpose}_…`;
    const admit = (principal: EnvironmentSecretPrincipal) => {
      if (principal.credential !== expected || (config.provisioning && !principal.purposes.includes(purpose))) {
        const message = `This operation needs ${a(NOUN[expected])} (${example}).`;
        return done(unauthorized('auth.invalid_secret', message, `, error="invalid_token", error_description="${message.replace('…', '...')}"`));
      }
      request.environmentSecret = principal;
      const serves = () =>
        principal.purposes.includes(purpose)
          ? done()
          : done(
              new ApiError(403, 'auth.secret_purpose', `This environment API secret may not be used for ${purpose}; create one with the purpose "${purpose}".`),
            );
      const limited = limits?.take(reply, `${principal.credential}:${principal.secretId}`, principal.rateLimitPerMinute ?? limits.defaults[expected]);
      if (!(limited instanceof Promise)) return limited ? done(limited) : serves();
      limited.then((error) => (error ? done(error) : serves()), done);
    };
    const header = request.headers.authorization;
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    const cached = token ? authenticator.cached(token) : undefined;
    if (cached) return admit(cached);
    const authenticate = () => {
      if (!header) return done(unauthorized('auth.missing_secret', `This operation needs ${a(NOUN[expected])}: "Authorization: Bearer ${example}".`));
      if (!token) {
        if (presentsWidgetToken(header)) return done(widgetTokenRefused());
        return done(unauthorized('auth.malformed_token', `The Authorization header must be "Bearer <${NOUN[expected]}>".`, ', error="invalid_request"'));
      }
      const prefix = token.slice(0, token.indexOf('_') + 1);
      if (config.provisioning && prefix !== `ad${purpose}_`) {
        const message = `This operation needs a provisioning token (${example}).`;
        return done(unauthorized('auth.invalid_secret', message, `, error="invalid_token", error_description="${message.replace('…', '...')}"`));
      }
      authenticator.authenticate(token).then(admit, (error: unknown) => {
        if (!(error instanceof AuthenticationError)) return done(error as Error);
        done(unauthorized('auth.invalid_secret', error.message, `, error="invalid_token", error_description="${error.message}"`));
      });
    };
    // An address whose failures filled its bucket may still present the credentials this instance verified, only those.
    const refused = limits && !(token && authenticator.known(token)) ? limits.refusedAddress(request) : undefined;
    if (!(refused instanceof Promise)) return refused ? done(refused) : authenticate();
    refused.then((error) => (error ? done(error) : authenticate()), done);
  });
}

/** The environment secret of a request on a route declaring `config.environmentSecret`. */
export function environmentSecretOf(request: FastifyRequest): EnvironmentSecretPrincipal {
  if (!request.environmentSecret) throw new Error('environmentSecretOf called on a route without config.environmentSecret');
  return request.environmentSecret;
}

/** Environment credentials, counted per credential (and failed authentications per address) before they are checked. */
export const environmentSecretPlugin = fp<{
  authenticator: EnvironmentSecretAuthenticator;
  rateLimit?: CredentialRateLimitOptions & { enabled: boolean };
  /** Where the credential limits count (api/rate-limits/shared-windows.ts): across the instances. */
  windows: SharedWindows;
}>(
  async (app, { authenticator, rateLimit, windows }) =>
    registerEnvironmentSecretAuth(app, authenticator, rateLimit?.enabled ? registerCredentialRateLimits(app, rateLimit, windows) : null),
  { name: 'environment-secret', fastify: '5.x', dependencies: ['errors'] },
);
