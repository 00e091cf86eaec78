// Each environment's billing entitlements in memory, by organization: `GET …/billing/entitlements/{organization}` is
// answered without a query. Loaded on first use and dropped with the access model when `iam_models` names the
// environment (billing_entitlements' trigger sends it when a row's value changes, migration 0053), so every instance
// answers the new value after the change commits.
import type { DatabasePool } from 'slonik';
import { createBillingSubscriptionQueries } from '../../db/billing/subscriptions.ts';
import type { Entitlements } from '../../db/billing/rows.ts';
import { createModelCache, type ModelCache } from '../access/models.ts';

export type EntitlementsCache = ModelCache<ReadonlyMap<string, Entitlements>>;

export function createEntitlementsCache(pool: DatabasePool): EntitlementsCache {
  return createModelCache({
    load: async (environmentId) => {
      const rows = await createBillingSubscriptionQueries(pool, environmentId).allEntitlements();
      return new Map(rows.map((row) => [row.organizationId, row]));
    },
  });
}
