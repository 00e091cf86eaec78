// Billing records as the API shows them: features, plans with their prices, subscriptions of organizations and the
// entitlements they give.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

/** The sync interval of an environment that never asked for a sync (BILLING_SYNC_INTERVAL's default). */
export const DEFAULT_SYNC_INTERVAL_MS = 3_600_000;

export const FEATURE_KINDS = ['boolean', 'limit', 'metered'] as const;
export type FeatureKind = (typeof FEATURE_KINDS)[number];
export const PRICE_INTERVALS = ['month', 'year'] as const;
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'unpaid', 'paused', 'incomplete', 'incomplete_expired', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** Statuses in which a subscription gives its plan's features (Stripe's: a past-due invoice does not cut access yet). */
export const IN_FORCE: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

/** A feature's value in a plan or an entitlement: true for a boolean feature, an integer for a limit or metered units. */
export const FeatureValue = z.union([z.literal(true), z.number().int().min(0)]);

export const BillingFeature = z
  .object({
    id: uuid,
    environmentId: uuid,
    key: z.string().describe('The feature’s key: what entitlements and conditions name it by'),
    name: z.string(),
    kind: z.enum(FEATURE_KINDS).describe('boolean: on or off; limit: a maximum (seats, projects); metered: usage with included units'),
    unit: z.string().nullable().describe('What a limit or a metered feature counts (`seat`, `api_call`)'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'BillingFeature' });
export type BillingFeature = z.infer<typeof BillingFeature>;

export const BillingPrice = z
  .object({
    id: uuid,
    currency: z.string().describe('ISO 4217, lower case (`usd`)'),
    amount: z.number().int().describe('In the currency’s minor unit (cents)'),
    interval: z.enum(PRICE_INTERVALS),
    stripePriceId: z.string().nullable().describe('The Stripe price, once the sync pushed it'),
  })
  .meta({ id: 'BillingPrice' });

export const BillingPlan = z
  .object({
    id: uuid,
    environmentId: uuid,
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    features: z.record(z.string(), FeatureValue).describe('Feature key → value: `true` (boolean), the limit, or the included units (metered)'),
    prices: z.array(BillingPrice).describe('The active prices; a price is never changed, a new one replaces it'),
    stripeProductId: z.string().nullable().describe('The Stripe product (`iam_<plan id>`), once the sync pushed it'),
    syncedAt: nullableTimestamp,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'BillingPlan' });
export type BillingPlan = z.infer<typeof BillingPlan>;

export const BillingSubscription = z
  .object({
    id: uuid,
    environmentId: uuid,
    organizationId: uuid,
    planId: uuid,
    planKey: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    source: z.enum(['api', 'stripe']).describe('api: set through this API; stripe: synced from the Stripe subscription'),
    stripeSubscriptionId: z.string().nullable(),
    stripeCustomerId: z.string().nullable(),
    currentPeriodEnd: nullableTimestamp,
    cancelAtPeriodEnd: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'BillingSubscription' });
export type BillingSubscription = z.infer<typeof BillingSubscription>;

export const Entitlements = z
  .object({
    organizationId: uuid,
    entitlements: z
      .record(z.string(), FeatureValue)
      .describe('Feature key → value over the subscriptions in force: `true`, or the largest limit / included units of its plans'),
    plans: z.array(z.string()).describe('The keys of the plans in force'),
    updatedAt: nullableTimestamp,
  })
  .meta({ id: 'BillingEntitlements' });
export type Entitlements = z.infer<typeof Entitlements>;

export const BillingSync = z
  .object({
    intervalMs: z.number().int(),
    requestedAt: isoTimestamp,
    lastSyncedAt: nullableTimestamp,
    lastError: z.string().nullable(),
    productsPushed: z.number().int(),
    pricesPushed: z.number().int(),
    subscriptionsPulled: z.number().int(),
  })
  .meta({ id: 'BillingSync' });
export type BillingSync = z.infer<typeof BillingSync>;
