// The access token of an account endpoint (`{issuer}/account/…`), checked as the provider's userinfo endpoint checks
// its token (oidc-provider's shared/access_token.js, through the Provider's own models): an opaque access token of
// this environment, live, with the `openid` scope and no audience (a token for a resource server is that server's),
// whose client and grant still exist and match. Unlike userinfo, a sender-constrained token (DPoP, mTLS) is refused:
// these endpoints do not verify proofs of possession. A client-credentials token is valid but has no user: 403.
import type Provider from 'oidc-provider';
import { ApiError } from '../errors.ts';
import { snapshotOf } from '../oidc/providers.ts';

/** Whom an account request acts for: the token's user, client and session in the environment. */
export interface AccountToken {
  tenantId: string;
  environmentId: string;
  userId: string;
  clientId: string;
  /** The provider session the token was issued in (kept when the user signs out their other sessions). */
  sessionUid: string | undefined;
  /** The origins of the client's redirect URIs: where a browser may call from (CORS, as for userinfo). */
  origins: string[];
}

const challenge = (attributes: string) => ({ 'www-authenticate': `Bearer realm="iam"${attributes}` });
const invalid = (description: string) =>
  new ApiError(401, 'auth.invalid_token', `The access token is not valid here: ${description}.`, {
    headers: challenge(`, error="invalid_token", error_description="${description}"`),
  });

/** The token of the `Authorization: Bearer` header, or the 401 of its absence or shape. */
export function bearerOf(authorization: string | undefined): string {
  if (!authorization)
    throw new ApiError(401, 'auth.missing_token', 'This operation needs an access token in the Authorization header.', { headers: challenge('') });
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization);
  if (!match?.[1]) {
    throw new ApiError(401, 'auth.malformed_token', 'The Authorization header must be "Bearer <access token>".', {
      headers: challenge(', error="invalid_request"'),
    });
  }
  return match[1];
}

const originOf = (uri: string) => URL.parse(uri)?.origin;

/** The user token `value` stands for at `provider` (the environment `environmentId`), or the 401/403 refusing it. */
export async function accountTokenOf(provider: Provider, environmentId: string, value: string): Promise<AccountToken> {
  const token = await provider.AccessToken.find(value);
  if (!token) {
    const credentials = await provider.ClientCredentials.find(value);
    if (credentials)
      throw new ApiError(403, 'account.user_required', 'This token was issued to a client, not to a user: the account endpoints act for a signed-in user.');
    throw invalid('unknown, expired or revoked');
  }
  if (token.aud !== undefined) throw invalid('its audience is a resource server');
  if (token.jkt || token['x5t#S256']) throw invalid('sender-constrained tokens are not accepted here');
  if (!token.scopes.has('openid')) {
    throw new ApiError(403, 'auth.insufficient_scope', 'The access token lacks the openid scope.', {
      headers: challenge(', error="insufficient_scope", scope="openid"'),
    });
  }
  const { accountId, grantId, clientId } = token;
  if (!accountId || !grantId || !clientId) throw invalid('it names no user');
  const client = await provider.Client.find(clientId);
  if (!client) throw invalid('its client no longer exists');
  const grant = await provider.Grant.find(grantId, { ignoreExpiration: true });
  if (!grant || grant.isExpired || grant.clientId !== clientId || grant.accountId !== accountId) throw invalid('its grant has ended');
  const redirectUris = (client.redirectUris as string[] | undefined) ?? [];
  return {
    tenantId: snapshotOf(provider).tenantId,
    environmentId,
    userId: accountId,
    clientId,
    sessionUid: token.sessionUid,
    origins: redirectUris.flatMap((uri) => originOf(uri) ?? []),
  };
}
