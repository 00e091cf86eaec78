// RFC 7591 dynamic client registration, open (no initial access token, as MCP clients need) where the environment's
// `oidc_settings.dynamic_registration` says so. What registers is stored through the adapter's Client model into
// `oidc_clients` (dynamically_registered), under the redirect URI rules of the clients API (https, http on a loopback
// host, a private-use scheme for public native apps; no fragment, no wildcard) and, because anyone may register,
// with the code flow's grants only (a self-registered client acts for a signed-in user, never as itself). Public
// (`none`) clients get PKCE enforced by the provider's configuration.
import { randomInt } from 'node:crypto';
import Provider, { errors, type ClientMetadata } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createOidcClientQueries } from '../../db/oidc/clients/queries.ts';
import { AUTH_METHODS } from '../../db/oidc/clients/rows.ts';
import { createOidcRegistrationClientQueries } from '../../db/oidc/registration/clients.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { displayPrefix, encrypt, generateCredential } from '../../lib/crypto.ts';
import { redirectUriProblem } from '../families/oidc/clients/redirect-uris.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The Provider's `features.registration` for an environment whose dynamic registration is `enabled`: ids and secrets
 * in the clients API's formats (`oc_…`, `adoc_…`); no registration access token (RFC 7592 management is the API's).
 */
export const registrationFeature = (enabled: boolean) => ({
  enabled,
  initialAccessToken: false,
  issueRegistrationAccessToken: false,
  idFactory: () => `oc_${Array.from({ length: 24 }, () => BASE62[randomInt(62)]).join('')}`,
  secretFactory: () => generateCredential('adoc'),
});

/**
 * Where registration is closed, the provider has no `/reg` route and Koa would answer a plain-text 404: answer the
 * OAuth JSON error shape instead (RFC 7591 has no "disabled" error, so `invalid_request`).
 */
export function answerClosedRegistration(provider: Provider, enabled: boolean) {
  if (enabled) return;
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/reg' || ctx.status !== 404 || ctx.body != null) return;
    ctx.status = 404;
    ctx.set('cache-control', 'no-store');
    ctx.body = { error: 'invalid_request', error_description: 'dynamic client registration is not enabled for this environment' };
  });
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const text = (value: unknown) => (typeof value === 'string' && value ? value : null);

// What a self-registered client may use: the code flow (with refresh tokens) of a signed-in user.
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
const RESPONSE_TYPES = new Set(['code']);

/** What is not allowed in registered metadata (RFC 7591 invalid_client_metadata), or null. */
function metadataProblem(metadata: ClientMetadata): string | null {
  const grantTypes = strings(metadata.grant_types);
  if (grantTypes.includes('client_credentials')) return 'grant_types client_credentials may not be registered dynamically';
  const grant = grantTypes.find((g) => !GRANT_TYPES.has(g));
  if (grant) return `grant_types ${grant} is not supported: authorization_code and refresh_token only`;
  const response = strings(metadata.response_types).find((r) => !RESPONSE_TYPES.has(r));
  if (response) return `response_types ${response} is not supported: code only`;
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) return `token_endpoint_auth_method ${method} is not supported`;
  if (metadata.jwks_uri !== undefined) return 'jwks_uri is not supported: register jwks';
  return null;
}

/**
 * Checks what a client registered and stores it with its audit entry and `oidc_client.created` event (actor: the
 * system; origin: the registering request); throws the provider's RFC 7591 errors (400).
 */
export async function storeRegisteredClient(
  pool: DatabasePool,
  scope: { tenantId: string; environmentId: string },
  masterKey: Buffer,
  metadata: ClientMetadata,
) {
  const { environmentId } = scope;
  for (const [field, uris] of [
    ['redirect_uris', strings(metadata.redirect_uris)],
    ['post_logout_redirect_uris', strings(metadata.post_logout_redirect_uris)],
  ] as const) {
    for (const uri of uris) {
      const problem = redirectUriProblem(uri, { privateScheme: metadata.token_endpoint_auth_method === 'none' });
      if (problem) throw new errors.InvalidClientMetadata(`${field} ${problem}: ${uri}`);
    }
  }
  const problem = metadataProblem(metadata);
  if (problem) throw new errors.InvalidClientMetadata(problem);
  const secret = text(metadata.client_secret);
  const ctx = Provider.ctx;
  await pool.transaction(async (trx) => {
    await createOidcRegistrationClientQueries(trx, environmentId).insert({
      clientId: metadata.client_id,
      name: text(metadata.client_name) ?? metadata.client_id,
      logoUri: text(metadata.logo_uri),
      clientUri: text(metadata.client_uri),
      policyUri: text(metadata.policy_uri),
      tosUri: text(metadata.tos_uri),
      redirectUris: strings(metadata.redirect_uris),
      postLogoutRedirectUris: strings(metadata.post_logout_redirect_uris),
      grantTypes: strings(metadata.grant_types),
      responseTypes: strings(metadata.response_types),
      scopes: typeof metadata.scope === 'string' && metadata.scope ? metadata.scope.split(' ') : null,
      tokenEndpointAuthMethod: metadata.token_endpoint_auth_method ?? 'client_secret_basic',
      jwks: (metadata.jwks as Record<string, unknown> | undefined) ?? null,
      secretEncrypted: secret ? encrypt(masterKey, secret) : null,
      secretPrefix: secret ? displayPrefix(secret) : null,
    });
    const client = await createOidcClientQueries(trx, environmentId).find(metadata.client_id);
    if (!client) throw new Error('the registered client vanished');
    await recordChange(trx, {
      actor: { type: 'system', id: null },
      origin: { ip: ctx?.ip ?? null, userAgent: ctx?.get('user-agent') || null, requestId: ctx?.get('x-request-id') || null },
      action: 'oidc_client.create',
      resource: { type: 'oidc_client', id: client.id },
      scope,
      after: client,
      event: { type: 'oidc_client.created', data: { client } },
    });
  });
}
