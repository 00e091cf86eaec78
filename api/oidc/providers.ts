// The environments' OpenID providers: one oidc-provider instance per environment, built on first use from what one
// read of the database gives (./build-provider.ts, loaded with the first one), kept in a bounded single-flight cache
// and dropped when an `iam_oidc` NOTIFY names the environment (api/app.ts).
import type Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createModelCache, type ModelCache } from '../access/models.ts';
import type { TrustStoreSnapshot } from '../access/trust-stores.ts';
import type { ConfigurationInput } from './configuration.ts';
import type * as Builder from './build-provider.ts';
import { createGrantUse, type GrantUse } from './grant-use.ts';
import type { OidcProviders } from './types.ts';

export { snapshotOf } from './snapshots.ts';

export class UnknownEnvironmentError extends Error {}

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

export const issuerOf = (publicBaseUrl: string, environmentId: string) => `${publicBaseUrl}/v1/oidc/${environmentId}`;

export const registrationEndpoint = (issuer: string) => `${issuer}/reg`;

// oidc-provider and the modules that build a Provider load with the first one built (./build-provider.ts).
let builder: Promise<typeof Builder> | undefined;
const buildProvider = async (deps: OidcProvidersDeps, environmentId: string, vanityHost?: string): Promise<Provider> =>
  (await (builder ??= import('./build-provider.ts'))).buildProvider(deps, environmentId, vanityHost);

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
