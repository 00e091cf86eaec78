// Shapes of an environment's billing (SPEC "Billing"; the records are ours: the SPEC does not show them).
import { z } from 'zod';
import { PageQuery, pageOf } from '../../../common/schemas.ts';
import {
  BillingFeature,
  BillingPlan,
  BillingSubscription,
  BillingSync,
  Entitlements,
  FEATURE_KINDS,
  FeatureValue,
  PRICE_INTERVALS,
  SUBSCRIPTION_STATUSES,
} from '../../../../db/billing/rows.ts';

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
const key = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be a lower-case key: a letter, then letters, digits or `_` (at most 63)')
  .describe('Lower-case letters, digits and `_`, starting with a letter; what CEL conditions name it by');
export const FeatureParams = EnvironmentScopeParams.extend({ featureKey: key });
export const PlanParams = EnvironmentScopeParams.extend({ planKey: key });
export const SubscriptionParams = EnvironmentScopeParams.extend({ subscriptionId: z.uuid() });
// Not `organizationId`: that path parameter names the organization a route addresses (api/plugins/scope.ts).
export const EntitlementParams = EnvironmentScopeParams.extend({
  organization: z.uuid().describe('The organization (linked to the tenant) whose entitlements'),
});

const name = z.string().trim().min(1, 'is required').max(200);
const unit = z.string().trim().min(1).max(50).nullable().optional().describe('What a limit or metered feature counts (`seat`)');

export const CreateFeatureBody = z.strictObject({ key, name, kind: z.enum(FEATURE_KINDS), unit }).meta({ id: 'CreateBillingFeatureRequest' });
export const UpdateFeatureBody = z.strictObject({ name: name.optional(), unit }).meta({ id: 'UpdateBillingFeatureRequest' });

const Price = z.strictObject({
  currency: z.string().regex(/^[a-z]{3}$/, 'must be an ISO 4217 code in lower case (`usd`)'),
  amount: z.number().int().min(0).max(99_999_999).describe('In the currency’s minor unit (cents)'),
  interval: z.enum(PRICE_INTERVALS),
});
const features = z
  .record(key, FeatureValue)
  .describe('Feature key → value: `true` for a boolean feature, an integer ≥ 0 for a limit or the included units of a metered one');
const prices = z.array(Price).max(20).describe('The plan’s prices; on an update, the whole list (equal prices are kept, others archived)');

export const CreatePlanBody = z
  .strictObject({ key, name, description: z.string().max(2000).nullable().optional(), features: features.default({}), prices: prices.default([]) })
  .meta({ id: 'CreateBillingPlanRequest' });
export const UpdatePlanBody = z
  .strictObject({ name: name.optional(), description: z.string().max(2000).nullable().optional(), features: features.optional(), prices: prices.optional() })
  .meta({ id: 'UpdateBillingPlanRequest' });

export const CreateSubscriptionBody = z
  .strictObject({
    organizationId: z.uuid().describe('An organization linked to the tenant'),
    planKey: key,
    status: z.enum(SUBSCRIPTION_STATUSES).default('active'),
  })
  .meta({ id: 'CreateBillingSubscriptionRequest' });
export const UpdateSubscriptionBody = z
  .strictObject({ planKey: key.optional(), status: z.enum(SUBSCRIPTION_STATUSES).optional() })
  .meta({ id: 'UpdateBillingSubscriptionRequest' });
export const SubscriptionQuery = PageQuery.extend({ organizationId: z.uuid().optional().describe('Only this organization’s subscriptions') });

export const SyncBody = z
  .strictObject({
    intervalSeconds: z.number().int().min(1).max(604_800).optional().describe('The pause between two periodic syncs (default BILLING_SYNC_INTERVAL)'),
  })
  .meta({ id: 'RequestBillingSyncRequest' });

export const FeatureResponse = z.object({ feature: BillingFeature }).meta({ id: 'BillingFeatureResponse' });
export const FeaturesList = pageOf('features', BillingFeature).meta({ id: 'ListBillingFeaturesResponse' });
export const PlanResponse = z.object({ plan: BillingPlan }).meta({ id: 'BillingPlanResponse' });
export const PlansList = pageOf('plans', BillingPlan).meta({ id: 'ListBillingPlansResponse' });
export const SubscriptionResponse = z.object({ subscription: BillingSubscription }).meta({ id: 'BillingSubscriptionResponse' });
export const SubscriptionsList = pageOf('subscriptions', BillingSubscription).meta({ id: 'ListBillingSubscriptionsResponse' });
export const EntitlementsResponse = Entitlements;
export const SyncResponse = z.object({ sync: BillingSync.nullable() }).meta({ id: 'BillingSyncResponse' });
export const DeletedResponse = z.object({ success: z.literal(true), id: z.string() }).meta({ id: 'BillingDeletedResponse' });
