// Queries of one environment's subscriptions and the entitlements they give: every statement is bound to
// `environmentId`. Entitlements are rewritten by `refreshEntitlements` in the transaction of every change that can
// alter them, so reads (the API's and the AuthZEN model's) are one row each.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../shared/pages.ts';
import { BillingSubscription, Entitlements, IN_FORCE, type SubscriptionStatus } from './rows.ts';

const columns = sql.fragment`
  s.id, s.environment_id AS "environmentId", s.organization_id AS "organizationId", s.plan_id AS "planId",
  (SELECT p.key FROM billing_plans p WHERE p.id = s.plan_id) AS "planKey", s.status, s.source,
  s.stripe_subscription_id AS "stripeSubscriptionId", s.stripe_customer_id AS "stripeCustomerId",
  s.current_period_end AS "currentPeriodEnd", s.cancel_at_period_end AS "cancelAtPeriodEnd", s.created_at AS "createdAt", s.updated_at AS "updatedAt"`;

export interface StripeSubscriptionWrite {
  stripeSubscriptionId: string;
  stripeCustomerId: string | null;
  organizationId: string;
  planId: string;
  status: SubscriptionStatus;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** When Stripe made the change (the event's `created`, or now for a pull): an older change is not applied. */
  at: string;
}

const Changed = z.object({ organizationId: z.uuid(), entitlements: z.record(z.string(), z.unknown()), plans: z.array(z.string()) });

export function createBillingSubscriptionQueries(db: CommonQueryMethods, environmentId: string) {
  const find = (id: string) =>
    db.maybeOne(sql.type(BillingSubscription)`SELECT ${columns} FROM billing_subscriptions s WHERE s.environment_id = ${environmentId} AND s.id = ${id}`);
  return {
    list: (page: PageRequest, filter: { organizationId?: string | undefined }) =>
      selectPage(
        db,
        BillingSubscription,
        sql.fragment`SELECT ${columns} FROM billing_subscriptions s WHERE s.environment_id = ${environmentId}
          ${filter.organizationId ? sql.fragment`AND s.organization_id = ${filter.organizationId}` : sql.fragment``}`,
        sql.fragment`s.created_at, s.id`,
        page,
      ),
    find,
    findByStripeId: (stripeId: string) =>
      db.maybeOne(sql.type(BillingSubscription)`
        SELECT ${columns} FROM billing_subscriptions s WHERE s.environment_id = ${environmentId} AND s.stripe_subscription_id = ${stripeId}`),
    insert: async (s: { organizationId: string; planId: string; status: SubscriptionStatus }) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO billing_subscriptions (environment_id, organization_id, plan_id, status, source)
        VALUES (${environmentId}, ${s.organizationId}, ${s.planId}, ${s.status}, 'api') RETURNING id`);
      return (await find(id))!;
    },
    update: async (id: string, s: { planId: string; status: SubscriptionStatus }) => {
      await db.query(sql.unsafe`
        UPDATE billing_subscriptions SET plan_id = ${s.planId}, status = ${s.status}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return (await find(id))!;
    },
    remove: (id: string) => db.query(sql.unsafe`DELETE FROM billing_subscriptions WHERE environment_id = ${environmentId} AND id = ${id}`),
    /** Organizations with a subscription to the plan that is not canceled. */
    inForceOnPlan: (planId: string) =>
      db.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM billing_subscriptions WHERE environment_id = ${environmentId} AND plan_id = ${planId}`),

    /**
     * Creates or updates the subscription mirroring a Stripe one, unless the stored state is from a later change;
     * answers the row when it changed, null otherwise.
     */
    upsertStripe: async (s: StripeSubscriptionWrite) => {
      const id = await db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO billing_subscriptions (environment_id, organization_id, plan_id, status, source, stripe_subscription_id, stripe_customer_id,
          current_period_end, cancel_at_period_end, stripe_event_at)
        VALUES (${environmentId}, ${s.organizationId}, ${s.planId}, ${s.status}, 'stripe', ${s.stripeSubscriptionId}, ${s.stripeCustomerId},
          ${s.currentPeriodEnd}, ${s.cancelAtPeriodEnd}, ${s.at})
        ON CONFLICT (environment_id, stripe_subscription_id) DO UPDATE SET plan_id = EXCLUDED.plan_id, status = EXCLUDED.status,
          organization_id = EXCLUDED.organization_id, stripe_customer_id = EXCLUDED.stripe_customer_id,
          current_period_end = EXCLUDED.current_period_end, cancel_at_period_end = EXCLUDED.cancel_at_period_end,
          stripe_event_at = EXCLUDED.stripe_event_at, updated_at = now()
        WHERE (billing_subscriptions.stripe_event_at IS NULL OR billing_subscriptions.stripe_event_at <= EXCLUDED.stripe_event_at)
          AND (billing_subscriptions.plan_id, billing_subscriptions.status, billing_subscriptions.organization_id, billing_subscriptions.current_period_end,
            billing_subscriptions.cancel_at_period_end) IS DISTINCT FROM
            (EXCLUDED.plan_id, EXCLUDED.status, EXCLUDED.organization_id, EXCLUDED.current_period_end, EXCLUDED.cancel_at_period_end)
        RETURNING id`);
      return id ? find(id) : null;
    },

    /** Every organization's entitlements row of the environment (the API's per-instance cache, api/billing). */
    allEntitlements: () =>
      db.any(sql.type(Entitlements)`
        SELECT organization_id AS "organizationId", entitlements, plans, updated_at AS "updatedAt"
        FROM billing_entitlements WHERE environment_id = ${environmentId}`),

    /**
     * Recomputes the entitlements of the given organizations (every organization of the environment when null) from
     * their subscriptions in force; answers those that changed, with their new entitlements (empty when none is left).
     */
    refreshEntitlements: async (organizationIds: string[] | null) => {
      const which = (column: string) =>
        organizationIds ? sql.fragment`AND ${sql.identifier([column])} = ANY(${sql.array(organizationIds, 'uuid')})` : sql.fragment``;
      const inForce = sql.array([...IN_FORCE], 'text');
      const changed = await db.any(sql.type(Changed)`
        WITH orgs AS (
          SELECT organization_id FROM billing_subscriptions WHERE environment_id = ${environmentId} ${which('organization_id')}
          UNION SELECT organization_id FROM billing_entitlements WHERE environment_id = ${environmentId} ${which('organization_id')}
        ), held AS (
          SELECT s.organization_id, p.key AS plan, f.key, f.value
          FROM billing_subscriptions s JOIN billing_plans p ON p.id = s.plan_id LEFT JOIN LATERAL jsonb_each(p.features) f ON true
          WHERE s.environment_id = ${environmentId} AND s.status = ANY(${inForce}) AND s.organization_id IN (SELECT organization_id FROM orgs)
        ), computed AS (
          SELECT o.organization_id,
            (SELECT coalesce(jsonb_object_agg(k.key, k.value), '{}') FROM (
              SELECT h.key, CASE WHEN bool_or(jsonb_typeof(h.value) = 'boolean') THEN 'true'::jsonb
                ELSE to_jsonb(max(CASE WHEN jsonb_typeof(h.value) = 'number' THEN (h.value #>> '{}')::numeric END)) END AS value
              FROM held h WHERE h.organization_id = o.organization_id AND h.key IS NOT NULL GROUP BY h.key) k) AS entitlements,
            (SELECT coalesce(array_agg(DISTINCT h.plan ORDER BY h.plan), '{}') FROM held h WHERE h.organization_id = o.organization_id) AS plans
          FROM orgs o
        ), removed AS (
          DELETE FROM billing_entitlements e USING computed c
          WHERE e.environment_id = ${environmentId} AND e.organization_id = c.organization_id AND c.plans = '{}'
          RETURNING e.organization_id
        ), written AS (
          INSERT INTO billing_entitlements (environment_id, organization_id, entitlements, plans)
          SELECT ${environmentId}, organization_id, entitlements, plans FROM computed WHERE plans <> '{}'
          ON CONFLICT (environment_id, organization_id) DO UPDATE SET entitlements = EXCLUDED.entitlements, plans = EXCLUDED.plans, updated_at = now()
          WHERE (billing_entitlements.entitlements, billing_entitlements.plans) IS DISTINCT FROM (EXCLUDED.entitlements, EXCLUDED.plans)
          RETURNING organization_id, entitlements, plans
        )
        SELECT organization_id AS "organizationId", entitlements, plans FROM written
        UNION ALL SELECT organization_id, '{}'::jsonb, '{}'::text[] FROM removed`);
      return [...changed];
    },
  };
}
