// The subscriptions of organizations to an environment's plans, the entitlements they give, and the Stripe sync.
// Subscriptions set through the API (`source: api`) sit beside those mirrored from Stripe (`source: stripe`, changed
// only by Stripe: webhooks and the sync); either kind in force gives its plan's features.
import type { DatabasePool } from 'slonik';
import { createBillingCatalogQueries } from '../../../../db/billing/catalog.ts';
import { requestBillingSync } from '../../../../db/billing/process.ts';
import { refreshAndRecord } from '../../../../db/billing/stripe-apply.ts';
import { createBillingStripeQueries } from '../../../../db/billing/stripe.ts';
import { createBillingSubscriptionQueries } from '../../../../db/billing/subscriptions.ts';
import type { BillingSubscription, SubscriptionStatus } from '../../../../db/billing/rows.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import type { EntitlementsCache } from '../../../billing/entitlements-cache.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { ApiError, conflict, invalidField, notFound, orNotFound } from '../../../errors.ts';

type Db = Parameters<typeof createBillingSubscriptionQueries>[0];

export function createBillingSubscriptionService(deps: { pool: DatabasePool; syncIntervalMs: number; entitlements: EntitlementsCache }) {
  const { pool } = deps;
  const q = (db: Db, caller: EnvironmentCaller) => createBillingSubscriptionQueries(db, caller.scope.environmentId);
  const scopeOf = (caller: EnvironmentCaller) => ({ tenantId: caller.scope.tenant.id, environmentId: caller.scope.environmentId });
  const planId = async (db: Db, caller: EnvironmentCaller, key: string) => {
    const plan = await createBillingCatalogQueries(db, caller.scope.environmentId).findPlan(key);
    if (!plan) throw invalidField('body.planKey', 'is not a plan of this environment');
    return plan.id;
  };
  const apiOnly = (s: BillingSubscription) => {
    if (s.source === 'stripe')
      throw conflict('billing_subscription.managed_by_stripe', 'This subscription mirrors a Stripe subscription: change it in Stripe.');
  };
  const save = async (trx: Db, caller: EnvironmentCaller, before: BillingSubscription | null, after: BillingSubscription) => {
    const resource = { type: 'billing_subscription', id: after.id };
    const data = { subscription: after, stripeEventId: null };
    const event = before ? ({ type: 'billing.subscription.updated', data } as const) : ({ type: 'billing.subscription.created', data } as const);
    await record(trx, caller, { action: before ? 'billing.subscription.update' : 'billing.subscription.create', resource, before, after, event });
    await refreshAndRecord(trx, scopeOf(caller), [after.organizationId], caller.actor);
    return { subscription: after };
  };

  return {
    list: (caller: EnvironmentCaller, query: PageQuery & { organizationId?: string | undefined }) =>
      listPage('subscriptions', query, (page) => q(pool, caller).list(page, { organizationId: query.organizationId })),
    get: async (caller: EnvironmentCaller, id: string) => ({ subscription: await orNotFound(q(pool, caller).find(id), 'billing_subscription', id) }),
    create: (caller: EnvironmentCaller, body: { organizationId: string; planKey: string; status: SubscriptionStatus }) =>
      pool.transaction(async (trx) => {
        if (!(await createBillingStripeQueries(trx, caller.scope.environmentId).organizationLinked(body.organizationId)))
          throw invalidField('body.organizationId', 'is not an organization linked to this tenant');
        const created = await q(trx, caller).insert({
          organizationId: body.organizationId,
          planId: await planId(trx, caller, body.planKey),
          status: body.status,
        });
        return save(trx, caller, null, created);
      }),
    update: (caller: EnvironmentCaller, id: string, body: { planKey?: string | undefined; status?: SubscriptionStatus | undefined }) =>
      pool.transaction(async (trx) => {
        const before = await orNotFound(q(trx, caller).find(id), 'billing_subscription', id);
        apiOnly(before);
        const plan = body.planKey ? await planId(trx, caller, body.planKey) : before.planId;
        return save(trx, caller, before, await q(trx, caller).update(id, { planId: plan, status: body.status ?? before.status }));
      }),
    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await orNotFound(q(trx, caller).find(id), 'billing_subscription', id);
        apiOnly(before);
        await q(trx, caller).remove(id);
        const resource = { type: 'billing_subscription', id };
        const event = { type: 'billing.subscription.deleted', data: { subscription: before, stripeEventId: null } } as const;
        await record(trx, caller, { action: 'billing.subscription.delete', resource, before, after: null, event });
        await refreshAndRecord(trx, scopeOf(caller), [before.organizationId], caller.actor);
        return { success: true as const, id };
      }),

    /** From the instance's cache of the materialized entitlements; an organization without any is checked to be linked (else 404). */
    entitlements: async (caller: EnvironmentCaller, organizationId: string) => {
      const found = (await deps.entitlements.get(caller.scope.environmentId)).get(organizationId);
      if (found) return found;
      if (!(await createBillingStripeQueries(pool, caller.scope.environmentId).organizationLinked(organizationId)))
        throw notFound('organization', organizationId);
      return { organizationId, entitlements: {}, plans: [], updatedAt: null };
    },

    sync: async (caller: EnvironmentCaller) => ({ sync: await createBillingStripeQueries(pool, caller.scope.environmentId).sync() }),
    requestSync: (caller: EnvironmentCaller, body: { intervalSeconds?: number | undefined }) =>
      pool.transaction(async (trx) => {
        const stripe = createBillingStripeQueries(trx, caller.scope.environmentId);
        const addOn = await stripe.addOn();
        if (!addOn?.active) throw new ApiError(409, 'billing.not_configured', 'The environment has no active `stripe` add-on: save and activate one first.');
        const intervalMs = body.intervalSeconds ? body.intervalSeconds * 1000 : deps.syncIntervalMs;
        const sync = await stripe.requestSync(intervalMs);
        await requestBillingSync(trx, caller.scope.tenant.id, { environmentId: caller.scope.environmentId, intervalMs }, Date.now());
        const resource = { type: 'billing_sync', id: caller.scope.environmentId };
        await record(trx, caller, { action: 'billing.sync.request', resource, event: { type: 'billing.sync.requested', data: { intervalMs } } });
        return { sync };
      }),
  };
}

export type BillingSubscriptionService = ReturnType<typeof createBillingSubscriptionService>;
