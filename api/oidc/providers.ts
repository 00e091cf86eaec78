// The environments' OpenID providers: one oidc-provider instance per environment, built on first use from what one
// read of the database gives (./build-provider.ts, loaded with the first one), kept in a bounded single-flight cache
// and dropped when an `iam_oidc` NOTIFY names the environment (api/app.ts).
import type Provider from 'oidc-provider';
import { createModelCache } from '../access/models.ts';
import type * as Builder from './build-provider.ts';
import type { OidcProvidersDeps } from './build-provider.ts';
import { patchOidcProviderContext } from './context-patch.ts';
import { createGrantUse } from './grant-use.ts';
import type { OidcProviders } from './types.ts';

export { snapshotOf } from './snapshots.ts';
export { issuerOf, registrationEndpoint, UnknownEnvironmentError } from './issuer.ts';

// oidc-provider and the modules that build a Provider load with the first one built (./build-provider.ts).
let builder: Promise<typeof Builder> | undefined;
const loadBuilder = () => {
  patchOidcProviderContext();
  return import('./build-provider.ts');
};
const buildProvider = async (deps: OidcProvidersDeps, environmentId: string, vanityHost?: string): Promise<Provider> =>
  (await (builder ??= loadBuilder())).buildProvider(deps, environmentId, vanityHost);

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
