// Events of an environment's billing, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { BillingFeature, BillingPlan, BillingSubscription, FeatureValue } from './rows.ts';

const feature = z.looseObject({ feature: BillingFeature });
const plan = z.looseObject({ plan: BillingPlan });
const subscription = z.looseObject({ subscription: BillingSubscription, stripeEventId: z.string().nullable().optional() });
const sync = z.looseObject({ productsPushed: z.number(), pricesPushed: z.number(), subscriptionsPulled: z.number(), error: z.string().nullable() });

export const BILLING_EVENTS = {
  'billing.feature.created': { description: 'A billing feature was added to the catalog.', data: feature },
  'billing.feature.updated': { description: 'A billing feature’s name or unit changed.', data: feature },
  'billing.feature.deleted': { description: 'A billing feature was deleted; `feature` is its last state.', data: feature },
  'billing.plan.created': { description: 'A plan was added to the catalog (pushed to Stripe by the next sync).', data: plan },
  'billing.plan.updated': { description: 'A plan’s name, features or prices changed.', data: plan },
  'billing.plan.deleted': { description: 'A plan was deleted; `plan` is its last state.', data: plan },
  'billing.subscription.created': {
    description: 'An organization’s subscription was created, through the API or from Stripe (`stripeEventId` names the Stripe event, if any).',
    data: subscription,
  },
  'billing.subscription.updated': {
    description: 'A subscription’s plan or status changed (through the API, a Stripe webhook or the sync).',
    data: subscription,
  },
  'billing.subscription.deleted': { description: 'A subscription set through the API was deleted; `subscription` is its last state.', data: subscription },
  'billing.entitlements.updated': {
    description: 'An organization’s effective entitlements changed (empty when no subscription is in force any more).',
    data: z.looseObject({ organizationId: z.uuid(), entitlements: z.record(z.string(), FeatureValue), plans: z.array(z.string()) }),
  },
  'billing.invoice.updated': {
    description: 'A Stripe `invoice.*` event was received for an invoice of a synced subscription: its status and amounts.',
    data: z.looseObject({
      stripeEventId: z.string(),
      stripeEventType: z.string(),
      invoiceId: z.string(),
      stripeSubscriptionId: z.string().nullable(),
      status: z.string().nullable(),
      currency: z.string().nullable(),
      amountDue: z.number().nullable(),
      amountPaid: z.number().nullable(),
    }),
  },
  'billing.sync.requested': { description: 'A sync with Stripe was asked for (`POST …/billing/sync`).', data: z.looseObject({ intervalMs: z.number() }) },
  'billing.sync.completed': {
    description: 'The reconcile process pushed the catalog to Stripe and pulled its subscriptions; counts of what it changed, or the `error` that stopped it.',
    data: sync,
  },
} as const satisfies Record<string, EventTypeEntry>;
