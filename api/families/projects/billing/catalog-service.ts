// An environment's billing catalog: features, and plans bundling feature values with prices. A plan's features must
// name features of the catalog with a value of their kind (400 naming `body.features.<key>`); a feature a plan uses,
// or a plan a subscription uses, cannot be deleted (409). Changes that alter entitlements refresh them in the same
// transaction.
import type { DatabasePool } from 'slonik';
import { createBillingCatalogQueries, type PriceWrite } from '../../../../db/billing/catalog.ts';
import { createBillingSubscriptionQueries } from '../../../../db/billing/subscriptions.ts';
import { refreshAndRecord } from '../../../../db/billing/stripe-apply.ts';
import type { BillingFeature } from '../../../../db/billing/rows.ts';
import type { PageQuery } from '../../../common/schemas.ts';
import { listPage } from '../../../common/schemas.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { ApiError, conflict, orNotFound } from '../../../errors.ts';

type Db = Parameters<typeof createBillingCatalogQueries>[0];
type Features = Record<string, true | number>;

const scopeOf = (caller: EnvironmentCaller) => ({ tenantId: caller.scope.tenant.id, environmentId: caller.scope.environmentId });

function checkFeatures(catalog: readonly BillingFeature[], features: Features) {
  const details = Object.entries(features).flatMap(([key, value]) => {
    const feature = catalog.find((f) => f.key === key);
    const path = `body.features.${key}`;
    if (!feature) return [{ path, message: 'is not a feature of the catalog' }];
    if (feature.kind === 'boolean' && value !== true) return [{ path, message: 'must be true (a boolean feature)' }];
    if (feature.kind !== 'boolean' && typeof value !== 'number') return [{ path, message: `must be an integer (a ${feature.kind} feature)` }];
    return [];
  });
  if (details.length)
    throw new ApiError(400, 'billing_plan.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
}

export function createBillingCatalogService(pool: DatabasePool) {
  const q = (db: Db, caller: EnvironmentCaller) => createBillingCatalogQueries(db, caller.scope.environmentId);
  const feature = (db: Db, caller: EnvironmentCaller, key: string) => orNotFound(q(db, caller).findFeature(key), 'billing_feature', key);
  const plan = (db: Db, caller: EnvironmentCaller, key: string) => orNotFound(q(db, caller).findPlan(key), 'billing_plan', key);

  return {
    listFeatures: (caller: EnvironmentCaller, query: PageQuery) => listPage('features', query, (page) => q(pool, caller).listFeatures(page)),
    getFeature: async (caller: EnvironmentCaller, key: string) => ({ feature: await feature(pool, caller, key) }),
    createFeature: (caller: EnvironmentCaller, body: { key: string; name: string; kind: BillingFeature['kind']; unit?: string | null | undefined }) =>
      pool.transaction(async (trx) => {
        if (await q(trx, caller).findFeature(body.key)) throw conflict('billing_feature.exists', `A feature "${body.key}" exists.`);
        const created = await q(trx, caller).insertFeature({ ...body, unit: body.unit ?? null });
        const resource = { type: 'billing_feature', id: created.id };
        await record(trx, caller, {
          action: 'billing.feature.create',
          resource,
          after: created,
          event: { type: 'billing.feature.created', data: { feature: created } },
        });
        return { feature: created };
      }),
    updateFeature: (caller: EnvironmentCaller, key: string, body: { name?: string | undefined; unit?: string | null | undefined }) =>
      pool.transaction(async (trx) => {
        const before = await feature(trx, caller, key);
        const after = await q(trx, caller).updateFeature(key, { name: body.name ?? before.name, unit: body.unit === undefined ? before.unit : body.unit });
        const resource = { type: 'billing_feature', id: after.id };
        await record(trx, caller, {
          action: 'billing.feature.update',
          resource,
          before,
          after,
          event: { type: 'billing.feature.updated', data: { feature: after } },
        });
        return { feature: after };
      }),
    deleteFeature: (caller: EnvironmentCaller, key: string) =>
      pool.transaction(async (trx) => {
        const before = await feature(trx, caller, key);
        const plans = await q(trx, caller).plansUsing(key);
        if (plans.length) throw conflict('billing_feature.in_use', `The feature "${key}" is part of the plans ${plans.join(', ')}: remove it from them first.`);
        await q(trx, caller).deleteFeature(key);
        const resource = { type: 'billing_feature', id: before.id };
        await record(trx, caller, {
          action: 'billing.feature.delete',
          resource,
          before,
          after: null,
          event: { type: 'billing.feature.deleted', data: { feature: before } },
        });
        return { success: true as const, id: before.id };
      }),

    listPlans: (caller: EnvironmentCaller, query: PageQuery) => listPage('plans', query, (page) => q(pool, caller).listPlans(page)),
    getPlan: async (caller: EnvironmentCaller, key: string) => ({ plan: await plan(pool, caller, key) }),
    createPlan: (
      caller: EnvironmentCaller,
      body: { key: string; name: string; description?: string | null | undefined; features: Features; prices: PriceWrite[] },
    ) =>
      pool.transaction(async (trx) => {
        checkFeatures(await q(trx, caller).allFeatures(), body.features);
        if (await q(trx, caller).findPlan(body.key)) throw conflict('billing_plan.exists', `A plan "${body.key}" exists.`);
        const id = await q(trx, caller).insertPlan({ key: body.key, name: body.name, description: body.description ?? null, features: body.features });
        await q(trx, caller).setPrices(id, body.prices);
        const created = (await q(trx, caller).findPlanById(id))!;
        const resource = { type: 'billing_plan', id };
        await record(trx, caller, {
          action: 'billing.plan.create',
          resource,
          after: created,
          event: { type: 'billing.plan.created', data: { plan: created } },
        });
        return { plan: created };
      }),
    updatePlan: (
      caller: EnvironmentCaller,
      key: string,
      body: { name?: string | undefined; description?: string | null | undefined; features?: Features | undefined; prices?: PriceWrite[] | undefined },
    ) =>
      pool.transaction(async (trx) => {
        const before = await plan(trx, caller, key);
        if (body.features) checkFeatures(await q(trx, caller).allFeatures(), body.features);
        await q(trx, caller).updatePlan(before.id, {
          name: body.name ?? before.name,
          description: body.description === undefined ? before.description : body.description,
          features: body.features ?? before.features,
        });
        if (body.prices) await q(trx, caller).setPrices(before.id, body.prices);
        const after = (await q(trx, caller).findPlanById(before.id))!;
        const resource = { type: 'billing_plan', id: after.id };
        await record(trx, caller, { action: 'billing.plan.update', resource, before, after, event: { type: 'billing.plan.updated', data: { plan: after } } });
        if (body.features) await refreshAndRecord(trx, scopeOf(caller), null, caller.actor);
        return { plan: after };
      }),
    deletePlan: (caller: EnvironmentCaller, key: string) =>
      pool.transaction(async (trx) => {
        const before = await plan(trx, caller, key);
        const used = await createBillingSubscriptionQueries(trx, caller.scope.environmentId).inForceOnPlan(before.id);
        if (used > 0) throw conflict('billing_plan.in_use', `The plan "${key}" has ${used} subscriptions: move or delete them first.`);
        await q(trx, caller).deletePlan(before.id);
        const resource = { type: 'billing_plan', id: before.id };
        await record(trx, caller, {
          action: 'billing.plan.delete',
          resource,
          before,
          after: null,
          event: { type: 'billing.plan.deleted', data: { plan: before } },
        });
        return { success: true as const, id: before.id };
      }),
  };
}

export type BillingCatalogService = ReturnType<typeof createBillingCatalogService>;
