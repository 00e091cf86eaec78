// POST /v1/oauth/introspect (RFC 7662). The introspecting party authenticates as a service account, with client
// credentials (Basic or in the body, as at the token endpoint), or with a bearer management token; either must
// hold impersonation:read. Failures of the caller's own authentication are RFC 6749 bodies.
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { hashSecret, secretsEqual } from '../../../../lib/crypto.ts';
import { createServiceAccountQueries } from '../../../../db/identity/service-accounts/queries.ts';
import { AuthenticationError, type Authenticator, type Principal } from '../../../access/principals.ts';
import { requires } from '../../../plugins/auth.ts';
import { grants } from '../../../scopes.ts';
import { basicCredentials } from '../../identity/oauth/routes.ts';
import type { Introspection } from './introspection.ts';
import type { App } from '../../../types.ts';

// RFC 7662 §2.1: unknown parameters are ignored, so the body is not strict.
const IntrospectBody = z
  .looseObject({
    token: z.string().optional().describe('The token to introspect: an impersonation token or a management credential'),
    token_type_hint: z.string().optional().describe('Ignored: the service recognises its tokens itself'),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .meta({ id: 'IntrospectionRequest' });

const IntrospectionResponse = z
  .looseObject({
    active: z.boolean(),
    sub: z.string().optional().describe('The impersonated user, or the principal of a management credential'),
    act: z.looseObject({ sub: z.string(), actor_type: z.string() }).optional().describe('RFC 8693 actor: the operator acting as `sub`'),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    exp: z.number().int().optional(),
    iat: z.number().int().optional(),
    iss: z.string().optional(),
    aud: z.union([z.string(), z.array(z.string())]).optional(),
    jti: z.string().optional(),
    token_type: z.string().optional().describe('`impersonation` or `management`'),
    principal_type: z.string().optional().describe('For a management credential: service_account, user or organization_key'),
    grant_id: z.string().optional(),
    environment_id: z.string().optional(),
    tenant_id: z.string().optional(),
  })
  .meta({ id: 'IntrospectionResponse' });

const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string() }).meta({ id: 'IntrospectionError' });

class ClientError extends Error {
  readonly status: 400 | 401 | 403;
  readonly error: string;
  constructor(status: 400 | 401 | 403, error: string, description: string) {
    super(description);
    this.status = status;
    this.error = error;
  }
}

const REQUIRED = 'impersonation:read';
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

async function callerOf(request: FastifyRequest, body: z.infer<typeof IntrospectBody>, pool: DatabasePool, authenticator: Authenticator): Promise<Principal> {
  const header = request.headers.authorization;
  const bearer = header ? BEARER.exec(header)?.[1] : undefined;
  if (bearer) {
    const principal = await authenticator.authenticate(bearer).catch((error: unknown) => {
      if (error instanceof AuthenticationError) throw new ClientError(401, 'invalid_client', error.message);
      throw error;
    });
    if (principal.impersonation) throw new ClientError(401, 'invalid_client', 'An impersonation token cannot introspect tokens.');
    return principal;
  }
  const basic = basicCredentials(header);
  if (header && !basic) throw new ClientError(401, 'invalid_client', 'The Authorization header must be Basic client credentials or a Bearer token.');
  if (basic && (body.client_secret || (body.client_id && body.client_id !== basic.id))) {
    throw new ClientError(400, 'invalid_request', 'Use one client authentication method, not both.');
  }
  const clientId = basic?.id ?? body.client_id;
  const clientSecret = basic?.secret ?? body.client_secret;
  if (!clientId || !clientSecret) throw new ClientError(401, 'invalid_client', 'Client authentication is required: client credentials or a bearer token.');
  const sa = await createServiceAccountQueries(pool).findServiceAccountByClientId(clientId);
  // Hash either way so an unknown client id costs the same as a wrong secret.
  const presented = hashSecret(clientSecret);
  if (!sa || !secretsEqual(presented, sa.secretHash) || !sa.active) throw new ClientError(401, 'invalid_client', 'Client authentication failed.');
  return {
    type: 'service_account',
    id: sa.id,
    credentialId: sa.id,
    organizationIds: [sa.organizationId],
    scopes: sa.scopes,
    environmentId: null,
    expiresAt: null,
    tenantIds: null,
    seats: [],
  };
}

export function introspectionRoutes(app: App, introspection: Introspection, deps: { pool: DatabasePool; authenticator: Authenticator }) {
  app.post('/v1/oauth/introspect', {
    // The caller is authenticated here (client credentials or bearer); every failure is an RFC 6749 body, never cached.
    config: { public: true, oauthErrors: true },
    schema: {
      tags: ['Authentication'],
      operationId: 'introspectToken',
      summary: 'Introspect a token (RFC 7662): impersonation tokens and management credentials',
      description:
        'Tells whether a token is in force and what it stands for. Form-encoded or JSON body with `token` (and an optional, ignored `token_type_hint`). ' +
        'The caller authenticates as a service account (client_secret_basic or client_secret_post) or with a bearer management token, and needs `impersonation:read`. ' +
        'An impersonation token is active while its grant is neither revoked nor expired and its user is active, and only for a caller that reaches its environment; ' +
        'a management credential (access token, personal access token, organization key) while it is valid, for a caller of one of its organizations. ' +
        'Anything else is `{ "active": false }`. Errors about the caller are RFC 6749 bodies: 401 `invalid_client`, 403 `insufficient_scope`, 400 `invalid_request`.',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: IntrospectBody,
      security: requires(REQUIRED),
      response: { 200: IntrospectionResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 403: OAuthErrorBody, 429: OAuthErrorBody },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const body = request.body ?? {};
      try {
        const caller = await callerOf(request, body, deps.pool, deps.authenticator);
        if (!grants(caller.scopes, REQUIRED)) throw new ClientError(403, 'insufficient_scope', `Introspection needs the scope ${REQUIRED}.`);
        if (!body.token) throw new ClientError(400, 'invalid_request', 'token is required.');
        return await introspection.introspect(caller, body.token);
      } catch (error) {
        if (!(error instanceof ClientError)) throw error;
        if (error.status === 401)
          reply.header('www-authenticate', request.headers.authorization?.startsWith('Basic') ? 'Basic realm="iam"' : 'Bearer realm="iam"');
        return reply.status(error.status).send({ error: error.error, error_description: error.message });
      }
    },
  });
}
