// What each environment's Provider was built from (settings, tenant): rebuilt with it on every change, so no page
// reads it again. Kept apart from ./build-provider.ts so the pages can read it without loading oidc-provider.
import type Provider from 'oidc-provider';
import type { ProviderSnapshot } from '../../db/oidc/provider/snapshot.ts';

const snapshots = new WeakMap<Provider, ProviderSnapshot>();

export const rememberSnapshot = (provider: Provider, snapshot: ProviderSnapshot) => void snapshots.set(provider, snapshot);

/** What the environment's Provider was built from (every Provider of ./build-provider.ts has one). */
export const snapshotOf = (provider: Provider): ProviderSnapshot => {
  const snapshot = snapshots.get(provider);
  if (!snapshot) throw new Error('a Provider not built by buildProvider');
  return snapshot;
};
