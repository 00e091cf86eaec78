// The environments' OpenID providers: one oidc-provider instance per environment, built on first use from what one
// read of the database gives (settings, claim mappings, allowlist, key ring), kept in a bounded single-flight cache
// and dropped when an `iam_oidc` NOTIFY names the environment (api/app.ts).
import Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createModelCache, type ModelCache } from '../access/models.ts';
import type { TrustStoreSnapshot } from '../access/trust-stores.ts';
import { createProviderSnapshotQueries, type ProviderSnapshot } from '../../db/oidc/provider/snapshot.ts';
import { providerConfiguration, type ConfigurationInput } from './configuration.ts';
import { loadKeyRing, providerJwks } from '../../db/oidc/keys/ring.ts';
import { createGrantUse, trackGrantUse, type GrantUse } from './grant-use.ts';
import { answerClosedRegistration, registrationFeature } from './registration.ts';
import { conformTokenErrors } from './rfc-errors.ts';
import { forgetSessions } from './remember-me.ts';
import { effectiveSessionConfig } from '../../lib/oidc/session-config.ts';
import type { OidcProviders } from './types.ts';

export class UnknownEnvironmentError extends Error {}

const snapshots = new WeakMap<Provider, ProviderSnapshot>();
/** What the Provider was built from (settings, tenant): rebuilt with it on every change, so no page reads it again. */
/** What the environment's Provider was built from (every Provider of ./providers.ts has one). */
export const snapshotOf = (provider: Provider): ProviderSnapshot => {
  const snapshot = snapshots.get(provider);
  if (!snapshot) throw new Error('a Provider not built by buildProvider');
  return snapshot;
};

export interface OidcProvidersDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
  /** How many environments' Providers one instance keeps (OIDC_PROVIDER_CACHE_SIZE). */
  max: number;
  /** Each environment's trust store, kept current by the iam_models NOTIFY: its MCP servers are the resources. */
  trustStores: ModelCache<TrustStoreSnapshot>;
  /** The provider's own server errors (it answers them with a 500 `server_error`). */
  onError?: (error: unknown, environmentId: string) => void;
  /** Records a token issued under a user's grant (connected apps' lastUsedAt); by default ./grant-use.ts. */
  grantUse?: GrantUse;
  /** A hook for features decided elsewhere (RFC 7591 registration, MCP authorization). */
  extend?: (environmentId: string, input: ConfigurationInput) => Partial<ConfigurationInput>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const issuerOf = (publicBaseUrl: string, environmentId: string) => `${publicBaseUrl}/v1/oidc/${environmentId}`;

export async function buildProvider(deps: OidcProvidersDeps, environmentId: string, vanityHost?: string): Promise<Provider> {
  if (!UUID.test(environmentId)) throw new UnknownEnvironmentError(environmentId);
  const { pool, masterKey } = deps;
  const snapshot = await createProviderSnapshotQueries(pool, environmentId).load();
  if (!snapshot) throw new UnknownEnvironmentError(environmentId);
  const keys = await loadKeyRing(pool, masterKey, environmentId);
  const issuer = issuerOf(vanityHost ? `https://${vanityHost}` : deps.publicBaseUrl, environmentId);
  const base: ConfigurationInput = {
    pool,
    masterKey,
    environmentId,
    snapshot,
    jwks: providerJwks(keys, masterKey),
    issuerPath: new URL(issuer).pathname,
    allowPrivateNetworkTargets: deps.allowPrivateNetworkTargets,
    isMcpServer: async (subject) => {
      const entry = (await deps.trustStores.get(environmentId)).get(subject);
      // Only a verified server may be a token's audience: a pending one is not yet trusted (its metadata is served).
      return entry?.kind === 'mcp_server' && entry.status === 'verified';
    },
  };
  const input = { ...base, ...deps.extend?.(environmentId, base) };
  const provider = new Provider(issuer, providerConfiguration(input));
  // The mount hands over the client's address and scheme in X-Forwarded-* (api/families/oidc/provider/mount.ts).
  provider.proxy = true;
  conformTokenErrors(provider);
  answerClosedRegistration(provider, (input.registration ?? registrationFeature(snapshot.dynamicRegistration === true)).enabled === true);
  if (!effectiveSessionConfig(snapshot.sessionConfig).rememberMe) forgetSessions(provider);
  if (deps.grantUse) trackGrantUse(provider, environmentId, deps.grantUse);
  provider.on('server_error', (_ctx, error) => deps.onError?.(error, environmentId));
  snapshots.set(provider, snapshot);
  return provider;
}

export function createOidcProviders(deps: OidcProvidersDeps): OidcProviders {
  const grantUse = deps.grantUse ?? createGrantUse(deps.pool, (error, environmentId) => deps.onError?.(error, environmentId));
  const cache = createModelCache({ load: (environmentId) => buildProvider({ ...deps, grantUse }, environmentId), max: deps.max });
  // Providers on vanity hosts (api/vanity/store.ts), keyed `<environmentId> <host>`, dropped with their environment's.
  const vanity = createModelCache({ load: (key) => buildProvider({ ...deps, grantUse }, ...(key.split(' ') as [string, string])), max: deps.max });
  const vanityKeys = new Map<string, Set<string>>();
  return {
    get: (environmentId, vanityHost) => {
      if (!vanityHost) return cache.get(environmentId);
      const key = `${environmentId} ${vanityHost}`;
      vanityKeys.set(environmentId, (vanityKeys.get(environmentId) ?? new Set()).add(key));
      return vanity.get(key);
    },
    evict: (id) => {
      cache.evict(id);
      for (const key of vanityKeys.get(id) ?? []) vanity.evict(key);
      vanityKeys.delete(id);
    },
    clear: () => {
      cache.clear();
      vanity.clear();
      vanityKeys.clear();
    },
  };
}
