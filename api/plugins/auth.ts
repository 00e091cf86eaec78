// Bearer authentication on every route but the public ones, and the scope each route declares in its
// OpenAPI security requirement (one declaration serves the docs and the check).
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor, RequestOrigin } from '../../db/shared/changes.ts';
import { ApiError } from '../errors.ts';
import { grants } from '../scopes.ts';
import type { Caller, EnvironmentCaller, OrganizationCaller, RequestScope, TenantCaller } from '../access/caller.ts';
import { AuthenticationError, type Authenticator, type Principal } from '../access/principals.ts';
import { presentsEnvironmentSecret } from './environment-secret.ts';
import { presentsWidgetToken, widgetTokenRefused } from '../access/widget-tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    authFailure: ApiError | null;
    /** What the route addresses, resolved by the scope guard (./scope.ts). */
    scope: RequestScope | null;
  }
  interface FastifyContextConfig {
    /** No token needed (health, OpenAPI, docs, JWKS, the token endpoint). */
    public?: boolean;
    /** An impersonation token is accepted here (GET /v1/userinfo); every other route refuses it with 403. */
    impersonation?: boolean;
  }
}

/** The HTTP bearer scheme (any token: access token, personal access token, organization key). */
export const BEARER = 'bearerAuth';
/** The OAuth 2.0 client-credentials scheme (access tokens from POST /v1/oauth/token). */
export const OAUTH2 = 'oauth2';

/** The `security` of an operation needing `scope`: a bearer token with the scope, or an OAuth 2.0 access token with it. */
export const requires = (scope: string): Record<string, string[]>[] => [{ [BEARER]: [scope] }, { [OAUTH2]: [scope] }];

const unauthorized = (code: string, message: string, attributes: string) =>
  new ApiError(401, code, message, { headers: { 'www-authenticate': `Bearer realm="iam"${attributes}` } });

/** The scope the route declares in its OpenAPI security requirement. */
export function requiredScope(request: FastifyRequest): string | undefined {
  const security = request.routeOptions.schema?.security as Record<string, string[]>[] | undefined;
  return security?.[0]?.[BEARER]?.[0];
}

export const insufficientScope = (scope: string, code: string, message: string) =>
  new ApiError(403, code, message, { headers: { 'www-authenticate': `Bearer realm="iam", error="insufficient_scope", scope="${scope}"` } });

export function registerAuth(app: FastifyInstance, authenticator: Authenticator) {
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);
  app.decorateRequest('scope', null);

  app.addHook('onRoute', (route) => {
    const security = route.schema?.security as Record<string, string[]>[] | undefined;
    if (
      !route.config?.public &&
      !route.config?.environmentSecret &&
      !route.config?.provisioning &&
      !Array.isArray(security?.[0]?.[BEARER]) &&
      !route.url.startsWith('/docs')
    ) {
      throw new Error(`route ${route.method} ${route.url} declares neither a scope, config.environmentSecret, config.provisioning nor config.public`);
    }
  });

  // Resolve the principal early (rate limits are per principal) but refuse only after the rate limiter ran.
  // Callback hooks, not async ones: they run on every request, and most return at once.
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    // Environment API secrets and provisioning tokens are checked by ./environment-secret.ts.
    const secret = config.environmentSecret && (!config.orBearer || presentsEnvironmentSecret(request));
    if (request.is404 || config.public || secret || config.provisioning || request.url.startsWith('/docs')) return done();
    const header = request.headers.authorization;
    if (!header) {
      request.authFailure = unauthorized('auth.missing_token', 'This operation needs a bearer token in the Authorization header.', '');
      return done();
    }
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (!match?.[1]) {
      request.authFailure = unauthorized('auth.malformed_token', 'The Authorization header must be "Bearer <token>".', ', error="invalid_request"');
      return done();
    }
    authenticator.authenticate(match[1]).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => {
        if (!(error instanceof AuthenticationError)) return done(error as Error);
        // Decided only once the token failed, so the check costs valid tokens nothing.
        if (presentsWidgetToken(header)) {
          request.authFailure = widgetTokenRefused();
          return done();
        }
        request.authFailure = unauthorized('auth.invalid_token', error.message, `, error="invalid_token", error_description="${error.message}"`);
        done();
      },
    );
  });

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.authFailure) return done(request.authFailure);
    if (request.principal?.impersonation && !request.routeOptions.config.impersonation) {
      return done(
        new ApiError(403, 'auth.impersonation_token', 'An impersonation token is accepted only by GET /v1/userinfo; it is no management credential.'),
      );
    }
    const scope = requiredScope(request);
    if (scope && request.principal && !grants(request.principal.scopes, scope)) {
      return done(insufficientScope(scope, 'auth.insufficient_scope', `This operation needs the scope ${scope}, which the token does not carry.`));
    }
    // A tenant seat's narrowing is decided by the scope guard, once it knows the tenant the route addresses.
    done();
  });
}

/** The authenticated principal of a route that requires one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf called on a public route');
  return request.principal;
}

const NO_SCOPE: RequestScope = { tenant: null, organizationId: null, environmentId: null };

/**
 * The acting principal with its audit identity, request origin and the scope the guard resolved. Given what the
 * route addresses, the caller's type says it is resolved (and a route that does not address it is a bug).
 */
export function callerOf(request: FastifyRequest): Caller;
export function callerOf(request: FastifyRequest, addresses: 'tenant'): TenantCaller;
export function callerOf(request: FastifyRequest, addresses: 'organization'): OrganizationCaller;
export function callerOf(request: FastifyRequest, addresses: 'environment'): EnvironmentCaller;
export function callerOf(request: FastifyRequest, addresses?: 'tenant' | 'organization' | 'environment'): Caller {
  const principal = principalOf(request);
  const actor: Actor = { type: principal.type, id: principal.id };
  const origin: RequestOrigin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id };
  const scope = request.scope ?? NO_SCOPE;
  const resolved = { tenant: scope.tenant, organization: scope.organizationId, environment: scope.environmentId };
  if (addresses && !resolved[addresses]) throw new Error(`${request.method} ${request.routeOptions.url} does not address a ${addresses}`);
  return { principal, actor, origin, scope };
}

/** Bearer authentication and scope checks; decorates `authenticator` (token introspection verifies with it). */
export const authPlugin = fp<{ authenticator: Authenticator }>(
  async (app, { authenticator }) => {
    registerAuth(app, authenticator);
    app.decorate('authenticator', authenticator);
  },
  { name: 'auth', fastify: '5.x', dependencies: ['errors'] },
);
