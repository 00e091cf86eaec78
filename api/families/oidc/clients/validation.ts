// The rules a client's settings must satisfy once register or update has filled them in (settings.ts): redirect URIs,
// grant types against the project and the auth method, PKCE, keys, Agent Sign-In limits; each refusal a 400 naming
// the field of the request.
import type { ClientSettings } from '../../../../db/oidc/clients/queries.ts';
import type { ProjectType } from '../../../../db/projects/projects/rows.ts';
import { toPublicJwk } from '../../../../lib/public-jwk.ts';
import { invalidField } from '../../../errors.ts';
import { isPrivateUse, redirectUriProblem } from './redirect-uris.ts';
import { AGENT_MAX_REDIRECT_URIS } from './schemas.ts';

function checkUris(s: ClientSettings) {
  const privateScheme = s.tokenEndpointAuthMethod === 'none';
  const native = s.redirectUris.some(isPrivateUse);
  for (const key of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    s[key].forEach((uri, i) => {
      const problem = redirectUriProblem(uri, { privateScheme, native });
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
