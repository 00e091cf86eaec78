// A client's settings as register and update leave them: defaults filled in, then every rule that spans fields
// checked (redirect URIs, grant types against the project and the auth method, PKCE, keys, Agent Sign-In limits),
// each refusal a 400 naming the field of the request.
import type { GrantType, OidcClient } from '../../../../db/oidc/clients/rows.ts';
import type { ClientSettings } from '../../../../db/oidc/clients/queries.ts';
import type { ProjectType } from '../../../../db/projects/projects/rows.ts';
import { toPublicJwk } from '../../../../lib/public-jwk.ts';
import { invalidField } from '../../../errors.ts';
import { redirectUriProblem } from './redirect-uris.ts';
import { AGENT_MAX_REDIRECT_URIS, type RegisterOidcClientBody, type UpdateOidcClientBody } from './schemas.ts';

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

function checkUris(s: ClientSettings) {
  const privateScheme = s.tokenEndpointAuthMethod === 'none';
  for (const key of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    s[key].forEach((uri, i) => {
      const problem = redirectUriProblem(uri, { privateScheme });
      if (problem) throw invalidField(`body.${key}.${i}`, problem);
    });
  }
  const problem = s.backchannelLogoutUri && redirectUriProblem(s.backchannelLogoutUri, { privateScheme: false });
  if (problem) throw invalidField('body.backchannelLogoutUri', problem);
}

function checkGrants(s: ClientSettings, projectType: ProjectType) {
  const has = (grant: string) => s.grantTypes.includes(grant as never);
  if (has('client_credentials') && projectType !== 'm2m') {
    throw invalidField('body.grantTypes', `must not include client_credentials: the project is of type ${projectType}, not m2m`);
  }
  if (has('client_credentials') && s.tokenEndpointAuthMethod === 'none') {
    throw invalidField('body.grantTypes', 'must not include client_credentials for a public client (tokenEndpointAuthMethod none)');
  }
  if (has('refresh_token') && !has('authorization_code')) throw invalidField('body.grantTypes', 'must include authorization_code with refresh_token');
  if (s.responseTypes.includes('code') && !has('authorization_code')) {
    throw invalidField('body.responseTypes', 'must not include code without the authorization_code grant');
  }
  if (has('authorization_code') && !s.responseTypes.includes('code'))
    throw invalidField('body.responseTypes', 'must include code with the authorization_code grant');
  if (has('authorization_code') && s.redirectUris.length === 0) {
    throw invalidField('body.redirectUris', 'must hold at least one URI for the authorization_code grant');
  }
  if (s.tokenEndpointAuthMethod === 'none' && !s.pkceRequired)
    throw invalidField('body.requirePkce', 'must be true for a public client (tokenEndpointAuthMethod none)');
}

function checkAgent(s: ClientSettings) {
  if (!s.agentSignIn) return;
  if (s.grantTypes.some((g) => g !== 'authorization_code')) {
    throw invalidField('body.grantTypes', 'must be [authorization_code] for an Agent Sign-In client (no refresh token, no client credentials)');
  }
  if (!s.pkceRequired) throw invalidField('body.requirePkce', 'must be true for an Agent Sign-In client');
  const offline = s.scopes.indexOf('offline_access');
  if (offline >= 0) throw invalidField(`body.scopes.${offline}`, 'must not be offline_access: an Agent Sign-In client gets no refresh token');
  if (s.redirectUris.length > AGENT_MAX_REDIRECT_URIS) {
    throw invalidField('body.redirectUris', `must hold at most ${AGENT_MAX_REDIRECT_URIS} URIs for an Agent Sign-In client`);
  }
}

/** The client's public keys as stored (validated like the trust store's), or a 400 naming the key member. */
async function checkedJwks(s: ClientSettings): Promise<ClientSettings['jwks']> {
  if (!s.jwks) {
    if (s.tokenEndpointAuthMethod === 'private_key_jwt')
      throw invalidField('body.jwks', 'is required for private_key_jwt: the public keys the client signs with');
    return null;
  }
  const keys: Record<string, unknown>[] = [];
  for (const [i, jwk] of s.jwks.keys.entries()) {
    const checked = await toPublicJwk(jwk);
    if ('problem' in checked) throw invalidField(`body.jwks.keys.${i}${checked.problem.member ? `.${checked.problem.member}` : ''}`, checked.problem.message);
    if (keys.some((k) => k.kid === checked.key.kid)) throw invalidField(`body.jwks.keys.${i}.kid`, 'must differ from the kid of every other key');
    keys.push({ ...checked.key });
  }
  return { keys };
}

/** The settings checked against every rule, with the keys as stored. */
export async function checkedSettings(s: ClientSettings, projectType: ProjectType): Promise<ClientSettings> {
  checkUris(s);
  checkAgent(s);
  checkGrants(s, projectType);
  return { ...s, jwks: await checkedJwks(s) };
}
