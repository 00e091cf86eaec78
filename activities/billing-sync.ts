// The billing sync's side effects: one reconcile with Stripe (db/billing/stripe-sync.ts) with the environment's
// `stripe` add-on. A Stripe failure (unreachable, refused key, an error answer) is recorded on the sync row and
// answered as the result's `error`, so the process waits for its next round rather than hammering Stripe; a
// database failure is thrown and retried.
import type { DatabasePool } from 'slonik';
import { decrypt } from '../lib/crypto.ts';
import { isStripeError, stripeClient } from '../lib/billing/stripe-client.ts';
import { OutboundUrlError } from '../lib/outbound/ssrf-guard.ts';
import { enqueueNextBillingSync } from '../db/billing/process.ts';
import { createBillingStripeQueries, tenantOfEnvironment } from '../db/billing/stripe.ts';
import { pullSubscriptions, pushCatalog, recordSync, type SyncCounts } from '../db/billing/stripe-sync.ts';
import type { Activities } from '../workflows/activities.ts';

export interface BillingSyncDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
}

export function createBillingSyncActivities(deps: BillingSyncDeps): Pick<Activities, 'syncBilling' | 'continueBillingSync'> {
  const { pool } = deps;
  return {
    syncBilling: async ({ environmentId }) => {
      const tenantId = await tenantOfEnvironment(pool, environmentId);
      const addOn = tenantId ? await createBillingStripeQueries(pool, environmentId).addOn() : null;
      if (!tenantId || !addOn?.active || !addOn.secretsEncrypted) return { configured: false };
      const secrets = JSON.parse(decrypt(deps.masterKey, addOn.secretsEncrypted)) as { secretKey: string };
      const scope = { tenantId, environmentId };
      const counts: SyncCounts = { productsPushed: 0, pricesPushed: 0, subscriptionsPulled: 0 };
      let error: string | null = null;
      try {
        const baseUrl = typeof addOn.config.baseUrl === 'string' ? addOn.config.baseUrl : undefined;
        const client = await stripeClient({ secretKey: secrets.secretKey, baseUrl }, deps);
        await pushCatalog(pool, client, scope, counts);
        await pullSubscriptions(pool, client, scope, counts);
      } catch (e) {
        if (!(isStripeError(e) || e instanceof OutboundUrlError)) throw e;
        error = e.message;
      }
      await recordSync(pool, scope, counts, error);
      return { configured: true, ...counts, error };
    },

    continueBillingSync: async (input) => {
      await enqueueNextBillingSync(pool, input);
    },
  };
}
