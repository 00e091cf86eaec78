// A client's settings as register and update leave them: the body over the client it changes, or over the defaults
// of a new client (an Agent Sign-In client gets its own). The rules are checked afterwards (validation.ts).
import type { GrantType, OidcClient } from '../../../../db/oidc/clients/rows.ts';
import type { ClientSettings } from '../../../../db/oidc/clients/queries.ts';
import type { RegisterOidcClientBody, UpdateOidcClientBody } from './schemas.ts';

const unique = <T>(values: T[]) => [...new Set(values)];

/** A new client's settings: the body with its defaults (an Agent Sign-In client gets its own). */
export function registerSettings(body: RegisterOidcClientBody): ClientSettings {
  const agent = body.agentSignIn ?? false;
  const grantTypes = unique<GrantType>(body.grantTypes ?? (agent ? ['authorization_code'] : ['authorization_code', 'refresh_token']));
  return {
    name: body.clientName,
    description: body.description ?? null,
    logoUri: body.logoUri ?? null,
    clientUri: body.clientUri ?? null,
    policyUri: body.policyUri ?? null,
    tosUri: body.tosUri ?? null,
    redirectUris: unique(body.redirectUris ?? []),
    postLogoutRedirectUris: unique(body.postLogoutRedirectUris ?? []),
    grantTypes,
    responseTypes: unique(body.responseTypes ?? (grantTypes.includes('authorization_code') ? ['code'] : [])),
    scopes: unique(body.scopes ?? ['openid', 'profile', 'email', ...(grantTypes.includes('refresh_token') ? ['offline_access'] : [])]),
    tokenEndpointAuthMethod: body.tokenEndpointAuthMethod ?? 'client_secret_basic',
    pkceRequired: body.requirePkce ?? true,
    agentSignIn: agent,
    idTokenSignedResponseAlg: body.idTokenSignedResponseAlg ?? 'ES256',
    backchannelLogoutUri: body.backchannelLogoutUri ?? null,
    jwks: body.jwks ?? null,
  };
}

/** A client's settings after an update: what the body gives over what it had. */
export function updatedSettings(before: OidcClient, body: UpdateOidcClientBody): ClientSettings {
  const pick = <K extends keyof UpdateOidcClientBody, V>(key: K, current: V) => (body[key] === undefined ? current : (body[key] as V));
  return {
    name: body.clientName ?? before.name,
    description: pick('description', before.description),
    logoUri: pick('logoUri', before.logoUri),
    clientUri: pick('clientUri', before.clientUri),
    policyUri: pick('policyUri', before.policyUri),
    tosUri: pick('tosUri', before.tosUri),
    redirectUris: unique(pick('redirectUris', before.redirectUris)),
    postLogoutRedirectUris: unique(pick('postLogoutRedirectUris', before.postLogoutRedirectUris)),
    grantTypes: unique(pick('grantTypes', before.grantTypes)),
    responseTypes: unique(pick('responseTypes', before.responseTypes)),
    scopes: unique(pick('scopes', before.scopes)),
    tokenEndpointAuthMethod: pick('tokenEndpointAuthMethod', before.tokenEndpointAuthMethod),
    pkceRequired: pick('requirePkce', before.pkceRequired),
    agentSignIn: before.agentSignIn,
    idTokenSignedResponseAlg: pick('idTokenSignedResponseAlg', before.idTokenSignedResponseAlg),
    backchannelLogoutUri: pick('backchannelLogoutUri', before.backchannelLogoutUri),
    jwks: pick('jwks', before.jwks),
  };
}
