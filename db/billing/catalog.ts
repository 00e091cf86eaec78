// Queries of one environment's billing catalog (features, plans and their prices): every statement is bound to
// `environmentId`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../shared/pages.ts';
import { BillingFeature, BillingPlan, type FeatureKind } from './rows.ts';

const featureColumns = sql.fragment`
  id, environment_id AS "environmentId", key, name, kind, unit, created_at AS "createdAt", updated_at AS "updatedAt"`;

const planColumns = sql.fragment`
  p.id, p.environment_id AS "environmentId", p.key, p.name, p.description, p.features,
  (SELECT coalesce(json_agg(json_build_object('id', r.id, 'currency', r.currency, 'amount', r.amount, 'interval', r.interval,
      'stripePriceId', r.stripe_price_id) ORDER BY r.created_at, r.id), '[]')
    FROM billing_prices r WHERE r.plan_id = p.id AND r.active) AS prices,
  p.stripe_product_id AS "stripeProductId", p.synced_at AS "syncedAt", p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

export interface FeatureWrite {
  key: string;
  name: string;
  kind: FeatureKind;
  unit: string | null;
}

export interface PlanWrite {
  key: string;
  name: string;
  description: string | null;
  features: Record<string, true | number>;
}

export interface PriceWrite {
  currency: string;
  amount: number;
  interval: 'month' | 'year';
}

const Id = z.object({ id: z.uuid() });

export function createBillingCatalogQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    listFeatures: (page: PageRequest) =>
      selectPage(
        db,
        BillingFeature,
        sql.fragment`SELECT ${featureColumns} FROM billing_features WHERE environment_id = ${environmentId}`,
        sql.fragment`key`,
        page,
      ),
    allFeatures: () => db.any(sql.type(BillingFeature)`SELECT ${featureColumns} FROM billing_features WHERE environment_id = ${environmentId}`),
    findFeature: (key: string) =>
      db.maybeOne(sql.type(BillingFeature)`SELECT ${featureColumns} FROM billing_features WHERE environment_id = ${environmentId} AND key = ${key}`),
    insertFeature: (f: FeatureWrite) =>
      db.one(sql.type(BillingFeature)`
        INSERT INTO billing_features (environment_id, key, name, kind, unit) VALUES (${environmentId}, ${f.key}, ${f.name}, ${f.kind}, ${f.unit})
        RETURNING ${featureColumns}`),
    updateFeature: (key: string, f: { name: string; unit: string | null }) =>
      db.one(sql.type(BillingFeature)`
        UPDATE billing_features SET name = ${f.name}, unit = ${f.unit}, updated_at = now()
        WHERE environment_id = ${environmentId} AND key = ${key} RETURNING ${featureColumns}`),
    deleteFeature: (key: string) => db.query(sql.unsafe`DELETE FROM billing_features WHERE environment_id = ${environmentId} AND key = ${key}`),
    /** The keys of the plans whose features name `key`. */
    plansUsing: (key: string) =>
      db.anyFirst(
        sql.type(z.object({ key: z.string() }))`SELECT key FROM billing_plans WHERE environment_id = ${environmentId} AND features ? ${key} ORDER BY key`,
      ),

    listPlans: (page: PageRequest) =>
      selectPage(db, BillingPlan, sql.fragment`SELECT ${planColumns} FROM billing_plans p WHERE p.environment_id = ${environmentId}`, sql.fragment`key`, page),
    allPlans: () => db.any(sql.type(BillingPlan)`SELECT ${planColumns} FROM billing_plans p WHERE p.environment_id = ${environmentId} ORDER BY key`),
    findPlan: (key: string) =>
      db.maybeOne(sql.type(BillingPlan)`SELECT ${planColumns} FROM billing_plans p WHERE p.environment_id = ${environmentId} AND p.key = ${key}`),
    findPlanById: (id: string) =>
      db.maybeOne(sql.type(BillingPlan)`SELECT ${planColumns} FROM billing_plans p WHERE p.environment_id = ${environmentId} AND p.id = ${id}`),
    insertPlan: (p: PlanWrite) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO billing_plans (environment_id, key, name, description, features)
        VALUES (${environmentId}, ${p.key}, ${p.name}, ${p.description}, ${sql.jsonb(p.features)}) RETURNING id`),
    updatePlan: (id: string, p: Omit<PlanWrite, 'key'>) =>
      db.query(sql.unsafe`
        UPDATE billing_plans SET name = ${p.name}, description = ${p.description}, features = ${sql.jsonb(p.features)}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`),
    deletePlan: (id: string) => db.query(sql.unsafe`DELETE FROM billing_plans WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Makes `prices` the plan's active prices: equal ones stay (with their Stripe price), others are archived, new ones added. */
    setPrices: async (planId: string, prices: PriceWrite[]) => {
      const active = await db.any(sql.type(z.object({ id: z.uuid(), currency: z.string(), amount: z.coerce.number(), interval: z.string() }))`
        SELECT id, currency, amount, interval FROM billing_prices WHERE environment_id = ${environmentId} AND plan_id = ${planId} AND active`);
      const same = (a: PriceWrite, b: PriceWrite) => a.currency === b.currency && a.amount === b.amount && a.interval === b.interval;
      const archived = active.filter((row) => !prices.some((p) => same(p, row as PriceWrite))).map((row) => row.id);
      const added = prices.filter((p) => !active.some((row) => same(p, row as PriceWrite)));
      if (archived.length)
        await db.query(sql.unsafe`
          UPDATE billing_prices SET active = false WHERE environment_id = ${environmentId} AND id = ANY(${sql.array(archived, 'uuid')})`);
      for (const p of added)
        await db.query(sql.unsafe`
          INSERT INTO billing_prices (environment_id, plan_id, currency, amount, interval) VALUES (${environmentId}, ${planId}, ${p.currency}, ${p.amount}, ${p.interval})`);
    },
  };
}
