import { z } from 'zod';
import type { OAuthTokenService } from './service.ts';
import { OAuthError } from './service.ts';
import type { App } from '../../../types.ts';

// RFC 6749: unknown parameters are ignored, so the body is not strict; validation happens in the service
// to answer with RFC 6749 error bodies.
const TokenBody = z
  .looseObject({
    grant_type: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional().describe("Space-delimited scopes, a subset of the service account's"),
  })
  .meta({ id: 'TokenRequest' });

const TokenResponse = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() })
  .meta({ id: 'TokenResponse' });

const OAuthErrorBody = z
  .object({
    error: z.string().describe('An RFC 6749 §5.2 code, or `rate_limited` (429, which RFC 6749 does not cover)'),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError' });

export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header ? /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded; a broken escape (`%`) or a NUL is no credential at all.
  try {
    const credentials = { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
    return credentials.id.includes('\u0000') || credentials.secret.includes('\u0000') ? undefined : credentials;
  } catch {
    return undefined;
  }
}

export function oauthRoutes(app: App, tokens: OAuthTokenService) {
  app.post('/v1/oauth/token', {
    // Every failure, including validation and rate limiting, in RFC 6749 form; nothing of it may be cached.
    config: { public: true, oauthErrors: true, noStore: true },
    schema: {
      tags: ['Authentication'],
      operationId: 'issueAccessToken',
      summary: 'Get an access token (OAuth 2.0 client credentials)',
      description:
        "Issues a short-lived access token (a JWT) for a service account's client credentials, narrowed to `scope` when given. Form-encoded or JSON body; " +
        'client authentication by client_secret_basic (Authorization: Basic) or client_secret_post. Errors are RFC 6749 bodies: 400 ' +
        '(`invalid_request`, `unsupported_grant_type`, `invalid_scope`) or 401 (`invalid_client`).',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: TokenBody,
      response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const body = request.body ?? {};
      try {
        const basic = basicCredentials(request.headers.authorization);
        if (request.headers.authorization && !basic)
          throw new OAuthError('invalid_client', 'The Authorization header must use the Basic scheme with the URL-encoded client_id:client_secret.');
        if (basic && (body.client_secret || (body.client_id && body.client_id !== basic.id))) {
          throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
        }
        return await tokens.issue({
          grantType: body.grant_type,
          clientId: basic?.id ?? body.client_id,
          clientSecret: basic?.secret ?? body.client_secret,
          scope: body.scope,
        });
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        if (error.status === 401 && request.headers.authorization) reply.header('www-authenticate', 'Basic realm="iam"');
        return reply.status(error.status as 400 | 401).send({ error: error.error, error_description: error.message });
      }
    },
  });
}
