// What the Stripe sync and webhooks store for one environment (every statement bound to `environmentId`): the
// add-on's sealed secrets, the Stripe ids of plans and prices, applied event ids, and the reconcile process's state.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { BillingSync, DEFAULT_SYNC_INTERVAL_MS } from './rows.ts';

const StripeAddOnRow = z.object({ active: z.boolean(), config: z.record(z.string(), z.unknown()), secretsEncrypted: z.string().nullable() });

const PriceToPush = z.object({
  id: z.uuid(),
  planId: z.uuid(),
  currency: z.string(),
  amount: z.coerce.number(),
  interval: z.enum(['month', 'year']),
  active: z.boolean(),
  stripePriceId: z.string().nullable(),
});

const syncColumns = sql.fragment`
  interval_ms AS "intervalMs", requested_at AS "requestedAt", last_synced_at AS "lastSyncedAt", last_error AS "lastError",
  products_pushed AS "productsPushed", prices_pushed AS "pricesPushed", subscriptions_pulled AS "subscriptionsPulled"`;

export function createBillingStripeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The environment's `stripe` add-on with its sealed secrets, if saved. */
    addOn: () =>
      db.maybeOne(sql.type(StripeAddOnRow)`
        SELECT active, config, secrets_encrypted AS "secretsEncrypted" FROM add_ons WHERE environment_id = ${environmentId} AND kind = 'stripe'`),

    setProductId: (planId: string, productId: string) =>
      db.query(sql.unsafe`
        UPDATE billing_plans SET stripe_product_id = ${productId}, synced_at = now() WHERE environment_id = ${environmentId} AND id = ${planId}`),
    setPriceId: (priceId: string, stripePriceId: string) =>
      db.query(sql.unsafe`UPDATE billing_prices SET stripe_price_id = ${stripePriceId} WHERE environment_id = ${environmentId} AND id = ${priceId}`),
    setPriceArchived: (priceId: string) =>
      db.query(sql.unsafe`UPDATE billing_prices SET stripe_archived = true WHERE environment_id = ${environmentId} AND id = ${priceId}`),
    /** Active prices without their Stripe price yet, and archived ones whose Stripe price is still active. */
    pricesToPush: () =>
      db.any(sql.type(PriceToPush)`
        SELECT id, plan_id AS "planId", currency, amount, interval, active, stripe_price_id AS "stripePriceId"
        FROM billing_prices
        WHERE environment_id = ${environmentId} AND ((active AND stripe_price_id IS NULL) OR (NOT active AND stripe_price_id IS NOT NULL AND NOT stripe_archived))
        ORDER BY created_at, id`),
    /** The plan a Stripe price or product stands for. */
    planOfStripe: (priceId: string | null, productId: string | null) =>
      db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT p.id FROM billing_plans p LEFT JOIN billing_prices r ON r.plan_id = p.id AND r.stripe_price_id = ${priceId}
        WHERE p.environment_id = ${environmentId} AND (r.id IS NOT NULL OR p.stripe_product_id = ${productId})
        ORDER BY r.id IS NULL LIMIT 1`),
    /** An organization linked to the environment's tenant. */
    organizationLinked: (organizationId: string) =>
      db.exists(sql.unsafe`
        SELECT 1 FROM environments e JOIN organization_tenants ot ON ot.tenant_id = e.tenant_id
        WHERE e.id = ${environmentId} AND ot.organization_id = ${organizationId}`),

    /** Records a Stripe event as applied; false when it already was (a redelivery). */
    claimEvent: async (id: string, type: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
        INSERT INTO billing_stripe_events (environment_id, id, type) VALUES (${environmentId}, ${id}, ${type})
        ON CONFLICT DO NOTHING RETURNING id`)) !== null,

    sync: () => db.maybeOne(sql.type(BillingSync)`SELECT ${syncColumns} FROM billing_syncs WHERE environment_id = ${environmentId}`),
    requestSync: (intervalMs: number) =>
      db.one(sql.type(BillingSync)`
        INSERT INTO billing_syncs (environment_id, interval_ms) VALUES (${environmentId}, ${intervalMs})
        ON CONFLICT (environment_id) DO UPDATE SET interval_ms = EXCLUDED.interval_ms, requested_at = now()
        RETURNING ${syncColumns}`),
    recordSync: (r: { error: string | null; products: number; prices: number; subscriptions: number }) =>
      db.query(sql.unsafe`
        INSERT INTO billing_syncs AS b (environment_id, interval_ms, last_synced_at, last_error, products_pushed, prices_pushed, subscriptions_pulled)
        VALUES (${environmentId}, ${DEFAULT_SYNC_INTERVAL_MS}, now(), ${r.error}, ${r.products}, ${r.prices}, ${r.subscriptions})
        ON CONFLICT (environment_id) DO UPDATE SET last_synced_at = now(), last_error = EXCLUDED.last_error,
          products_pushed = b.products_pushed + EXCLUDED.products_pushed, prices_pushed = b.prices_pushed + EXCLUDED.prices_pushed,
          subscriptions_pulled = b.subscriptions_pulled + EXCLUDED.subscriptions_pulled`),
  };
}

/** The tenant of an environment (null when it is gone), for the scope a process records its changes with. */
// unscoped: the billing-sync process was started for this environment and reads only its tenant.
export const tenantOfEnvironment = (db: CommonQueryMethods, environmentId: string) =>
  db.maybeOneFirst(sql.type(z.object({ tenantId: z.uuid() }))`SELECT tenant_id AS "tenantId" FROM environments WHERE id = ${environmentId}`);
