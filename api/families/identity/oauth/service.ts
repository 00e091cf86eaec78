// OAuth 2.0 client credentials grant (RFC 6749 §4.4) for service accounts.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { DatabasePool } from 'slonik';
import { hashSecret, secretsEqual } from '../../../../lib/crypto.ts';
import { createServiceAccountQueries } from '../../../../db/identity/service-accounts/queries.ts';
import { isKnownScope, narrow } from '../../../scopes.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';

/** An RFC 6749 §5.2 error: rendered as `{ error, error_description }`, never as our usual error shape. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope', description: string) {
    super(description);
    this.error = error;
    this.status = error === 'invalid_client' ? 401 : 400;
  }
}

export interface TokenRequest {
  grantType: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  scope: string | undefined;
}

export function createOAuthTokenService(deps: { pool: DatabasePool; keys: SigningKeys; issuer: string; audience: string; ttlSeconds: number }) {
  return {
    issue: async (request: TokenRequest) => {
      if (!request.grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
      if (request.grantType !== 'client_credentials') {
        throw new OAuthError('unsupported_grant_type', `grant_type ${request.grantType} is not supported; use client_credentials.`);
      }
      if (!request.clientId || !request.clientSecret)
        throw new OAuthError('invalid_client', 'Client authentication failed: client_id and client_secret are required.');
      const sa = await createServiceAccountQueries(deps.pool).findServiceAccountByClientId(request.clientId);
      // Hash either way so an unknown client id costs the same as a wrong secret.
      const presented = hashSecret(request.clientSecret);
      if (!sa || !secretsEqual(presented, sa.secretHash) || !sa.active) {
        throw new OAuthError('invalid_client', 'Client authentication failed.');
      }
      let scopes = sa.scopes;
      if (request.scope !== undefined) {
        const requested = request.scope.split(' ').filter(Boolean);
        const unknown = requested.find((s) => !isKnownScope(s));
        if (unknown) throw new OAuthError('invalid_scope', `Unknown scope ${unknown}.`);
        const granted = narrow(sa.scopes, requested);
        if (requested.length === 0 || granted.length !== requested.length) {
          throw new OAuthError('invalid_scope', `The client may not request ${requested.filter((s) => !granted.includes(s)).join(' ') || 'an empty scope'}.`);
        }
        scopes = granted;
      }
      const { kid, key } = deps.keys.current();
      const accessToken = await new SignJWT({ scope: scopes.join(' '), org: sa.organizationId, client_id: sa.clientId, gen: sa.tokenGeneration })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .setIssuer(deps.issuer)
        .setAudience(deps.audience)
        .setSubject(sa.id)
        .setJti(randomUUID())
        .setIssuedAt()
        .setNotBefore('0s')
        .setExpirationTime(`${deps.ttlSeconds}s`)
        .sign(key);
      return { access_token: accessToken, token_type: 'Bearer' as const, expires_in: deps.ttlSeconds, scope: scopes.join(' ') };
    },
  };
}

export type OAuthTokenService = ReturnType<typeof createOAuthTokenService>;
