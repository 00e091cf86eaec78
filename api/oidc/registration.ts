// RFC 7591 dynamic client registration, open (no initial access token, as MCP clients need) where the environment's
// `oidc_settings.dynamic_registration` says so. What registers is stored through the adapter's Client model into
// `oidc_clients` (dynamically_registered), under the rules of the clients API: redirect URIs https or loopback http,
// no fragment, no wildcard; and, because anyone may register, no client_credentials grant (a self-registered client
// must act for a signed-in user). Public (`none`) clients get PKCE enforced by the provider's default.
import { errors, type ClientMetadata } from 'oidc-provider';
import type { CommonQueryMethods } from 'slonik';
import { createOidcRegistrationClientQueries } from '../../db/oidc/registration/clients.ts';
import { displayPrefix, encrypt } from '../../lib/crypto.ts';

export const registrationEndpoint = (issuer: string) => `${issuer}/reg`;

/** The Provider's `features.registration` for an environment whose dynamic registration is `enabled`. */
export const registrationFeature = (enabled: boolean) => ({ enabled, initialAccessToken: false, issueRegistrationAccessToken: false });

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `uri` may not be a redirect URI of a client (https, or http to a loopback host; no fragment or wildcard), or null. */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (uri.includes('*')) return 'must not contain a wildcard';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return 'must be https, or http to a loopback address (127.0.0.1, [::1], localhost)';
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const text = (value: unknown) => (typeof value === 'string' && value ? value : null);

/** Checks what a client registered and stores it; throws the provider's RFC 7591 errors (400). */
export async function storeRegisteredClient(db: CommonQueryMethods, environmentId: string, masterKey: Buffer, metadata: ClientMetadata) {
  for (const [field, uris] of [
    ['redirect_uris', strings(metadata.redirect_uris)],
    ['post_logout_redirect_uris', strings(metadata.post_logout_redirect_uris)],
  ] as const) {
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new errors.InvalidClientMetadata(`${field} ${problem}: ${uri}`);
    }
  }
  const grantTypes = strings(metadata.grant_types);
  if (grantTypes.includes('client_credentials')) throw new errors.InvalidClientMetadata('grant_types client_credentials may not be registered dynamically');
  if (metadata.jwks_uri !== undefined) throw new errors.InvalidClientMetadata('jwks_uri is not supported: register jwks');
  const secret = text(metadata.client_secret);
  await createOidcRegistrationClientQueries(db, environmentId).insert({
    clientId: metadata.client_id,
    name: text(metadata.client_name) ?? metadata.client_id,
    logoUri: text(metadata.logo_uri),
    clientUri: text(metadata.client_uri),
    policyUri: text(metadata.policy_uri),
    tosUri: text(metadata.tos_uri),
    redirectUris: strings(metadata.redirect_uris),
    postLogoutRedirectUris: strings(metadata.post_logout_redirect_uris),
    grantTypes,
    responseTypes: strings(metadata.response_types),
    scopes: typeof metadata.scope === 'string' && metadata.scope ? metadata.scope.split(' ') : null,
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method ?? 'client_secret_basic',
    jwks: (metadata.jwks as Record<string, unknown> | undefined) ?? null,
    secretEncrypted: secret ? encrypt(masterKey, secret) : null,
    secretPrefix: secret ? displayPrefix(secret) : null,
  });
}
