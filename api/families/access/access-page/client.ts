// The page's own OIDC client in each environment, registered on first use (like Keycloak's built-in account-console
// client): public (PKCE, no secret), authorization code only, `openid` alone, its redirect URIs the page's own. It is
// an ordinary row of the environment's clients, so operators see it in the client list, and deactivating it turns the
// page off; the page never re-activates it. Registered by the system, audited and evented as `oidc_client.created`.
import { UniqueIntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import { createOidcClientQueries, type ClientSettings } from '../../../../db/oidc/clients/queries.ts';
import type { OidcClient } from '../../../../db/oidc/clients/rows.ts';
import { recordChange } from '../../../../db/shared/changes.ts';

export const accessPageClientId = (environmentId: string) => `access-requests-${environmentId}`;

export interface PageUrls {
  callback: string;
  signedOut: string;
}

const settingsOf = (urls: PageUrls): ClientSettings => ({
  name: 'Access requests',
  description: 'The built-in client of the access-requests page: people request and approve just-in-time access there.',
  logoUri: null,
  clientUri: null,
  policyUri: null,
  tosUri: null,
  redirectUris: [urls.callback],
  postLogoutRedirectUris: [urls.signedOut],
  grantTypes: ['authorization_code'],
  responseTypes: ['code'],
  scopes: ['openid'],
  tokenEndpointAuthMethod: 'none',
  pkceRequired: true,
  agentSignIn: false,
  idTokenSignedResponseAlg: 'ES256',
  backchannelLogoutUri: null,
  jwks: null,
});

/** The environment's page client, registered now when missing (its redirect URIs follow PUBLIC_BASE_URL). */
export async function ensurePageClient(pool: DatabasePool, scope: { tenantId: string; environmentId: string }, urls: PageUrls): Promise<OidcClient> {
  const clientId = accessPageClientId(scope.environmentId);
  const current = await createOidcClientQueries(pool, scope.environmentId).find(clientId);
  if (current && current.redirectUris.includes(urls.callback) && current.postLogoutRedirectUris.includes(urls.signedOut)) return current;
  try {
    return await pool.transaction(async (trx) => {
      const clients = createOidcClientQueries(trx, scope.environmentId);
      const before = await clients.find(clientId, { lock: true });
      // A moved PUBLIC_BASE_URL changes the redirect URIs only: an operator's other changes (active) stay.
      const client = before
        ? await clients.update(clientId, { ...settingsOf(urls), name: before.name, description: before.description }, undefined)
        : await clients.insert(clientId, settingsOf(urls), null);
      await recordChange(trx, {
        actor: { type: 'system', id: null },
        action: before ? 'oidc_client.update' : 'oidc_client.create',
        resource: { type: 'oidc_client', id: client.id },
        scope: { tenantId: scope.tenantId, environmentId: scope.environmentId },
        before,
        after: client,
        event: before ? { type: 'oidc_client.updated', data: { client } } : { type: 'oidc_client.created', data: { client } },
      });
      return client;
    });
  } catch (error) {
    // Two first visits at once: the other one registered it.
    if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
    return (await createOidcClientQueries(pool, scope.environmentId).find(clientId))!;
  }
}
