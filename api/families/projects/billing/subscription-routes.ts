// Subscriptions, entitlements and the Stripe sync of an environment.
import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import { billingBase, read, tags, write } from './catalog-routes.ts';
import {
  CreateSubscriptionBody,
  DeletedResponse,
  EntitlementParams,
  EntitlementsResponse,
  EnvironmentScopeParams,
  SubscriptionParams,
  SubscriptionQuery,
  SubscriptionResponse,
  SubscriptionsList,
  SyncBody,
  SyncResponse,
  UpdateSubscriptionBody,
} from './schemas.ts';
import type { BillingSubscriptionService } from './subscriptions-service.ts';

export function billingSubscriptionRoutes(app: App, subscriptions: BillingSubscriptionService) {
  const base = `${billingBase}/subscriptions`;
  app.get(base, {
    schema: {
      tags,
      operationId: 'listBillingSubscriptions',
      summary: 'List subscriptions',
      description: 'The subscriptions of organizations to the environment’s plans, oldest first; `organizationId` narrows to one organization.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: SubscriptionQuery,
      response: { 200: SubscriptionsList, ...errorResponses(404) },
    },
    handler: (r) => subscriptions.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createBillingSubscription',
      summary: 'Subscribe an organization to a plan',
      description:
        'Subscribes an organization linked to the tenant (400 naming `body.organizationId` otherwise) to a plan without Stripe (`source: api`: ' +
        'a trial, a contract invoiced elsewhere). Its entitlements follow in the same transaction. Emits `billing.subscription.created`.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateSubscriptionBody,
      response: { 201: SubscriptionResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.code(201).send(await subscriptions.create(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:subscriptionId`, {
    schema: {
      tags,
      operationId: 'getBillingSubscription',
      summary: 'Get a subscription',
      description: 'One subscription, set through the API or mirrored from Stripe.',
      security: read,
      params: SubscriptionParams,
      response: { 200: SubscriptionResponse, ...errorResponses(404) },
    },
    handler: (r) => subscriptions.get(callerOf(r, 'environment'), r.params.subscriptionId),
  });
  app.patch(`${base}/:subscriptionId`, {
    schema: {
      tags,
      operationId: 'updateBillingSubscription',
      summary: 'Change a subscription',
      description:
        'Changes the plan or status of a subscription set through the API (one mirrored from Stripe is 409 `billing_subscription.managed_by_stripe`). ' +
        'Emits `billing.subscription.updated`, and `billing.entitlements.updated` when the entitlements change.',
      security: write,
      params: SubscriptionParams,
      body: UpdateSubscriptionBody,
      response: { 200: SubscriptionResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => subscriptions.update(callerOf(r, 'environment'), r.params.subscriptionId, r.body),
  });
  app.delete(`${base}/:subscriptionId`, {
    schema: {
      tags,
      operationId: 'deleteBillingSubscription',
      summary: 'Delete a subscription',
      description: 'Deletes a subscription set through the API (409 for one mirrored from Stripe). Emits `billing.subscription.deleted`.',
      security: write,
      params: SubscriptionParams,
      response: { 200: DeletedResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => subscriptions.remove(callerOf(r, 'environment'), r.params.subscriptionId),
  });
  app.get(`${billingBase}/entitlements/:organization`, {
    schema: {
      tags,
      operationId: 'getBillingEntitlements',
      summary: 'Get an organization’s entitlements',
      description:
        'The organization’s effective entitlements from the local catalog (materialized by every change, held in memory by each instance until a change commits): each feature of its ' +
        'subscriptions in force (`trialing`, `active`, `past_due`) with `true` or the largest limit. Empty when it has none; 404 for an organization not linked to the tenant. ' +
        'AuthZEN conditions read the same values as `subject.entitlements`.',
      security: read,
      params: EntitlementParams,
      response: { 200: EntitlementsResponse, ...errorResponses(404) },
    },
    handler: (r) => subscriptions.entitlements(callerOf(r, 'environment'), r.params.organization),
  });
  app.get(`${billingBase}/sync`, {
    schema: {
      tags,
      operationId: 'getBillingSync',
      summary: 'Get the Stripe sync’s state',
      description: 'The interval and the last outcome of the environment’s Stripe sync (null before the first).',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: SyncResponse, ...errorResponses(404) },
    },
    handler: (r) => subscriptions.sync(callerOf(r, 'environment')),
  });
  app.post(`${billingBase}/sync`, {
    schema: {
      tags,
      operationId: 'syncBilling',
      summary: 'Sync with Stripe now',
      description:
        'Starts the environment’s `billing-sync` process (a no-op while it runs) and asks it to sync now: it pushes the plans as Stripe products and ' +
        'prices and pulls Stripe’s subscriptions, then repeats every interval. 409 `billing.not_configured` without an active `stripe` add-on. Emits `billing.sync.requested`.',
      security: write,
      params: EnvironmentScopeParams,
      body: SyncBody,
      response: { 202: SyncResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.code(202).send(await subscriptions.requestSync(callerOf(r, 'environment'), r.body ?? {})),
  });
}
