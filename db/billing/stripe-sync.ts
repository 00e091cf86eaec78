// One reconcile of an environment's billing with Stripe, both ways: pushes what Stripe lacks (a product per plan,
// with the id `iam_<plan id>`; a price per active price, created once under an idempotency key; archived prices
// archived there too) and pulls every subscription, mirrored like a webhook would (./stripe-apply.ts). Idempotent:
// a second run with nothing changed writes nothing, in Stripe or here.
import type { DatabasePool } from 'slonik';
import type Stripe from 'stripe';
import { recordChange } from '../shared/changes.ts';
import { createBillingCatalogQueries } from './catalog.ts';
import { applyStripeSubscription, STRIPE_ACTOR, type BillingScope } from './stripe-apply.ts';
import { createBillingStripeQueries } from './stripe.ts';

export interface SyncCounts {
  productsPushed: number;
  pricesPushed: number;
  subscriptionsPulled: number;
}

const missing = (error: unknown) => (error as { statusCode?: number }).statusCode === 404;

export async function pushCatalog(pool: DatabasePool, client: Stripe, scope: BillingScope, counts: SyncCounts) {
  const { environmentId } = scope;
  const stripe = createBillingStripeQueries(pool, environmentId);
  for (const plan of await createBillingCatalogQueries(pool, environmentId).allPlans()) {
    const id = `iam_${plan.id}`;
    const fields = { name: plan.name, description: plan.description ?? '', metadata: { planKey: plan.key, planId: plan.id, environmentId } };
    if (plan.stripeProductId && plan.syncedAt && plan.syncedAt >= plan.updatedAt) continue;
    const exists = await client.products.retrieve(id).then(
      () => true,
      (error: unknown) => (missing(error) ? false : Promise.reject(error)),
    );
    if (exists) await client.products.update(id, fields);
    else await client.products.create({ id, ...fields }, { idempotencyKey: `iam-product-${plan.id}` });
    await stripe.setProductId(plan.id, id);
    counts.productsPushed++;
  }
  for (const price of await stripe.pricesToPush()) {
    if (price.active) {
      const created = await client.prices.create(
        {
          product: `iam_${price.planId}`,
          currency: price.currency,
          unit_amount: price.amount,
          recurring: { interval: price.interval },
          metadata: { priceId: price.id },
        },
        { idempotencyKey: `iam-price-${price.id}` },
      );
      await stripe.setPriceId(price.id, created.id);
    } else {
      await client.prices.update(price.stripePriceId!, { active: false });
      await stripe.setPriceArchived(price.id);
    }
    counts.pricesPushed++;
  }
}

export async function pullSubscriptions(pool: DatabasePool, client: Stripe, scope: BillingScope, counts: SyncCounts) {
  const at = Math.floor(Date.now() / 1000);
  for await (const sub of client.subscriptions.list({ status: 'all', limit: 100 })) {
    const outcome = await pool.transaction((trx) => applyStripeSubscription(trx, scope, sub, { eventId: null, at }));
    if (outcome === 'changed') counts.subscriptionsPulled++;
  }
}

/** Records the outcome of a sync on its row, and as `billing.sync.completed` when it changed something or failed. */
export async function recordSync(pool: DatabasePool, scope: BillingScope, counts: SyncCounts, error: string | null) {
  await pool.transaction(async (trx) => {
    await createBillingStripeQueries(trx, scope.environmentId).recordSync({
      error,
      products: counts.productsPushed,
      prices: counts.pricesPushed,
      subscriptions: counts.subscriptionsPulled,
    });
    if (!error && counts.productsPushed + counts.pricesPushed + counts.subscriptionsPulled === 0) return;
    await recordChange(trx, {
      actor: STRIPE_ACTOR,
      action: 'billing.sync',
      resource: { type: 'billing_sync', id: scope.environmentId },
      scope,
      event: { type: 'billing.sync.completed', data: { ...counts, error } },
    });
  });
}
