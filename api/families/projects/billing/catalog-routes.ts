// The catalog routes: features and plans of an environment.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import {
  CreateFeatureBody,
  CreatePlanBody,
  DeletedResponse,
  EnvironmentScopeParams,
  FeatureParams,
  FeatureResponse,
  FeaturesList,
  PlanParams,
  PlanResponse,
  PlansList,
  UpdateFeatureBody,
  UpdatePlanBody,
} from './schemas.ts';
import type { BillingCatalogService } from './catalog-service.ts';

export const tags = ['Billing'];
export const billingBase = '/v1/tenants/:tenantId/environments/:environmentId/billing';
export const read = requires('billing:read');
export const write = requires('billing:write');

export function billingCatalogRoutes(app: App, catalog: BillingCatalogService) {
  const features = `${billingBase}/features`;
  const plans = `${billingBase}/plans`;
  app.get(features, {
    schema: {
      tags,
      operationId: 'listBillingFeatures',
      summary: 'List billing features',
      description: 'The features of the environment’s catalog, by key.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: FeaturesList, ...errorResponses(404) },
    },
    handler: (r) => catalog.listFeatures(callerOf(r, 'environment'), r.query),
  });
  app.post(features, {
    schema: {
      tags,
      operationId: 'createBillingFeature',
      summary: 'Create a billing feature',
      description:
        'Adds a feature: `boolean` (on or off), `limit` (a maximum) or `metered` (usage with included units). 409 `billing_feature.exists`. Emits `billing.feature.created`.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateFeatureBody,
      response: { 201: FeatureResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.code(201).send(await catalog.createFeature(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${features}/:featureKey`, {
    schema: {
      tags,
      operationId: 'getBillingFeature',
      summary: 'Get a billing feature',
      description: 'One feature of the catalog, by key.',
      security: read,
      params: FeatureParams,
      response: { 200: FeatureResponse, ...errorResponses(404) },
    },
    handler: (r) => catalog.getFeature(callerOf(r, 'environment'), r.params.featureKey),
  });
  app.patch(`${features}/:featureKey`, {
    schema: {
      tags,
      operationId: 'updateBillingFeature',
      summary: 'Update a billing feature',
      description: 'Changes a feature’s name or unit (its key and kind are fixed). Emits `billing.feature.updated`.',
      security: write,
      params: FeatureParams,
      body: UpdateFeatureBody,
      response: { 200: FeatureResponse, ...errorResponses(404) },
    },
    handler: (r) => catalog.updateFeature(callerOf(r, 'environment'), r.params.featureKey, r.body),
  });
  app.delete(`${features}/:featureKey`, {
    schema: {
      tags,
      operationId: 'deleteBillingFeature',
      summary: 'Delete a billing feature',
      description: 'Deletes a feature no plan uses (409 `billing_feature.in_use` naming the plans otherwise). Emits `billing.feature.deleted`.',
      security: write,
      params: FeatureParams,
      response: { 200: DeletedResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => catalog.deleteFeature(callerOf(r, 'environment'), r.params.featureKey),
  });

  app.get(plans, {
    schema: {
      tags,
      operationId: 'listBillingPlans',
      summary: 'List billing plans',
      description: 'The plans of the environment’s catalog, by key, with their features and active prices.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: PlansList, ...errorResponses(404) },
    },
    handler: (r) => catalog.listPlans(callerOf(r, 'environment'), r.query),
  });
  app.post(plans, {
    schema: {
      tags,
      operationId: 'createBillingPlan',
      summary: 'Create a billing plan',
      description:
        'Adds a plan bundling feature values (each a feature of the catalog with a value of its kind: 400 `billing_plan.invalid` naming ' +
        '`body.features.<key>`) with prices. The next Stripe sync pushes it as a product and its prices. Emits `billing.plan.created`.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreatePlanBody,
      response: { 201: PlanResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.code(201).send(await catalog.createPlan(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${plans}/:planKey`, {
    schema: {
      tags,
      operationId: 'getBillingPlan',
      summary: 'Get a billing plan',
      description: 'One plan of the catalog, by key.',
      security: read,
      params: PlanParams,
      response: { 200: PlanResponse, ...errorResponses(404) },
    },
    handler: (r) => catalog.getPlan(callerOf(r, 'environment'), r.params.planKey),
  });
  app.patch(`${plans}/:planKey`, {
    schema: {
      tags,
      operationId: 'updateBillingPlan',
      summary: 'Update a billing plan',
      description:
        'Changes a plan’s name, description, features (the entitlements of its subscribers follow in the same transaction) or prices ' +
        '(the whole list: equal prices are kept, others archived, in Stripe too at the next sync). Emits `billing.plan.updated`.',
      security: write,
      params: PlanParams,
      body: UpdatePlanBody,
      response: { 200: PlanResponse, ...errorResponses(404) },
    },
    handler: (r) => catalog.updatePlan(callerOf(r, 'environment'), r.params.planKey, r.body),
  });
  app.delete(`${plans}/:planKey`, {
    schema: {
      tags,
      operationId: 'deleteBillingPlan',
      summary: 'Delete a billing plan',
      description:
        'Deletes a plan without subscriptions (409 `billing_plan.in_use` otherwise); its Stripe product is left as it is. Emits `billing.plan.deleted`.',
      security: write,
      params: PlanParams,
      response: { 200: DeletedResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => catalog.deletePlan(callerOf(r, 'environment'), r.params.planKey),
  });
}
