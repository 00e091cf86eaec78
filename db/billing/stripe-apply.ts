// Applying a Stripe subscription to an environment's billing, shared by the webhook route and the reconcile
// process: the subscription names its organization in `metadata.organizationId` (set by the app when it creates the
// Checkout session or subscription) and its plan by its price (or product) that the sync pushed. Recorded with a
// `system` actor; entitlements are refreshed and their change evented in the same transaction.
import type { CommonQueryMethods } from 'slonik';
import type Stripe from 'stripe';
import { recordChange, type Actor } from '../shared/changes.ts';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './rows.ts';
import { createBillingStripeQueries } from './stripe.ts';
import { createBillingSubscriptionQueries } from './subscriptions.ts';

export interface BillingScope {
  tenantId: string;
  environmentId: string;
}

export const STRIPE_ACTOR: Actor = { type: 'system', id: 'stripe' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (seconds: number | null | undefined) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null);

/** Records `billing.entitlements.updated` for each organization whose entitlements the refresh changed. */
export async function refreshAndRecord(trx: CommonQueryMethods, scope: BillingScope, organizationIds: string[] | null, actor: Actor) {
  const changed = await createBillingSubscriptionQueries(trx, scope.environmentId).refreshEntitlements(organizationIds);
  for (const c of changed) {
    await recordChange(trx, {
      actor,
      action: 'billing.entitlements.update',
      resource: { type: 'billing_entitlements', id: c.organizationId },
      scope: { ...scope, organizationId: c.organizationId },
      event: { type: 'billing.entitlements.updated', data: { organizationId: c.organizationId, entitlements: c.entitlements as never, plans: c.plans } },
    });
  }
  return changed.length;
}

/**
 * Mirrors one Stripe subscription; answers `changed` when the local subscription changed, or why it was ignored
 * (no organization or plan of this environment named, a status unknown to us).
 */
export async function applyStripeSubscription(
  trx: CommonQueryMethods,
  scope: BillingScope,
  sub: Stripe.Subscription,
  source: { eventId: string | null; at: number },
): Promise<'changed' | 'unchanged' | `ignored: ${string}`> {
  const organizationId = sub.metadata?.organizationId;
  if (!organizationId || !UUID.test(organizationId)) return 'ignored: no metadata.organizationId';
  const stripe = createBillingStripeQueries(trx, scope.environmentId);
  if (!(await stripe.organizationLinked(organizationId))) return 'ignored: the organization is not linked to the tenant';
  const item = sub.items?.data?.[0];
  const price = item?.price;
  const product = typeof price?.product === 'string' ? price.product : (price?.product?.id ?? null);
  const planId = await stripe.planOfStripe(price?.id ?? null, product);
  if (!planId) return 'ignored: no plan of this environment has its price or product';
  if (!SUBSCRIPTION_STATUSES.includes(sub.status as SubscriptionStatus)) return `ignored: status ${sub.status}`;
  const subscriptions = createBillingSubscriptionQueries(trx, scope.environmentId);
  const before = await subscriptions.findByStripeId(sub.id);
  const legacyEnd = (sub as unknown as { current_period_end?: number }).current_period_end;
  const after = await subscriptions.upsertStripe({
    stripeSubscriptionId: sub.id,
    stripeCustomerId: typeof sub.customer === 'string' ? sub.customer : (sub.customer?.id ?? null),
    organizationId,
    planId,
    status: sub.status as SubscriptionStatus,
    currentPeriodEnd: iso(item?.current_period_end ?? legacyEnd),
    cancelAtPeriodEnd: sub.cancel_at_period_end ?? false,
    at: new Date(source.at * 1000).toISOString(),
  });
  if (!after) return 'unchanged';
  await recordChange(trx, {
    actor: STRIPE_ACTOR,
    action: before ? 'billing.subscription.update' : 'billing.subscription.create',
    resource: { type: 'billing_subscription', id: after.id },
    scope: { ...scope, organizationId },
    before,
    after,
    event: { type: before ? 'billing.subscription.updated' : 'billing.subscription.created', data: { subscription: after, stripeEventId: source.eventId } },
  });
  const organizations = before && before.organizationId !== organizationId ? [organizationId, before.organizationId] : [organizationId];
  await refreshAndRecord(trx, scope, organizations, STRIPE_ACTOR);
  return 'changed';
}
