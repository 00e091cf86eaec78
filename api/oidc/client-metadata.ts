// An oidc_clients row as oidc-provider client metadata. An Agent Sign-In client gets the authorization code grant
// only (no refresh token) with PKCE; a client outside the environment's allowlist (when it has entries) is
// refused at the authorization endpoint (./allowlist.ts).
import { decrypt } from '../../lib/crypto.ts';
import type { OidcClientRow } from '../../db/oidc/provider/clients.ts';

// A client's `scope` may name only the provider's own scopes (configuration.ts `scopes`; others make the client
// invalid_client_metadata) and gates only those; API scopes (orders:read…) are the resource servers' to grant.
const OPENID_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email', 'phone', 'address']);

const drop = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));

export function clientMetadata(row: OidcClientRow, deps: { masterKey: Buffer }): Record<string, unknown> {
  const grantTypes = row.agentSignIn ? ['authorization_code'] : row.grantTypes;
  const signsIn = grantTypes.includes('authorization_code');
  return drop({
    client_id: row.clientId,
    client_secret: row.secretEncrypted ? decrypt(deps.masterKey, row.secretEncrypted) : null,
    client_name: row.name,
    // A private-use scheme redirect URI (com.example.app:/cb, RFC 8252) makes a native app; web apps take http(s) only.
    application_type: row.redirectUris.some((uri) => !/^https?:/i.test(uri)) ? 'native' : null,
    logo_uri: row.logoUri,
    client_uri: row.clientUri,
    policy_uri: row.policyUri,
    tos_uri: row.tosUri,
    redirect_uris: signsIn ? row.redirectUris : [],
    post_logout_redirect_uris: row.postLogoutRedirectUris,
    grant_types: grantTypes,
    response_types: signsIn ? row.responseTypes : [],
    // No OpenID scope at all (API scopes only) is `openid` alone: an empty scope would let the client ask for any.
    scope: row.scopes.filter((s) => OPENID_SCOPES.has(s) && !(row.agentSignIn && s === 'offline_access')).join(' ') || 'openid',
    token_endpoint_auth_method: row.tokenEndpointAuthMethod,
    id_token_signed_response_alg: row.idTokenSignedResponseAlg,
    backchannel_logout_uri: row.backchannelLogoutUri,
    backchannel_logout_session_required: row.backchannelLogoutUri ? true : null,
    jwks: row.jwks,
    pkce_required: row.pkceRequired || row.agentSignIn,
    agent_sign_in: row.agentSignIn,
  });
}
