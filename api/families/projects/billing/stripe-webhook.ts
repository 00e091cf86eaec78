// Stripe's webhooks for an environment: verified with the SDK's own `constructEvent` over the raw body and the
// `stripe` add-on's webhook signing secret, applied once per Stripe event id (redeliveries change nothing).
// `customer.subscription.*` mirrors the subscription (./../../../../db/billing/stripe-apply.ts); `invoice.*` is
// recorded as `billing.invoice.updated`. Other types are acknowledged and ignored.
import type { DatabasePool } from 'slonik';
import type Stripe from 'stripe';
import { decrypt } from '../../../../lib/crypto.ts';
import { stripeWebhooks } from '../../../../lib/billing/stripe-client.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { applyStripeSubscription, STRIPE_ACTOR, type BillingScope } from '../../../../db/billing/stripe-apply.ts';
import { createBillingStripeQueries, tenantOfEnvironment } from '../../../../db/billing/stripe.ts';
import { ApiError } from '../../../errors.ts';

type Trx = Parameters<Parameters<DatabasePool['transaction']>[0]>[0];

const idOf = (value: unknown) => (typeof value === 'string' ? value : ((value as { id?: string } | null)?.id ?? null));

async function recordInvoice(trx: Trx, scope: BillingScope, event: Stripe.Event) {
  const invoice = event.data.object as Stripe.Invoice & { subscription?: unknown };
  const parent = (invoice as { parent?: { subscription_details?: { subscription?: unknown } } }).parent;
  await recordChange(trx, {
    actor: STRIPE_ACTOR,
    action: 'billing.invoice.update',
    resource: { type: 'stripe_invoice', id: invoice.id ?? null },
    scope,
    event: {
      type: 'billing.invoice.updated',
      data: {
        stripeEventId: event.id,
        stripeEventType: event.type,
        invoiceId: invoice.id ?? '',
        stripeSubscriptionId: idOf(parent?.subscription_details?.subscription ?? invoice.subscription),
        status: invoice.status ?? null,
        currency: invoice.currency ?? null,
        amountDue: invoice.amount_due ?? null,
        amountPaid: invoice.amount_paid ?? null,
      },
    },
  });
  return 'recorded';
}

export function createStripeWebhookService(deps: { pool: DatabasePool; masterKey: Buffer }) {
  const { pool } = deps;
  return {
    /** Verifies and applies one delivery; 400 `stripe.signature_invalid` when the signature does not verify. */
    receive: async (environmentId: string, rawBody: string, signature: string | undefined) => {
      const tenantId = await tenantOfEnvironment(pool, environmentId);
      const addOn = tenantId ? await createBillingStripeQueries(pool, environmentId).addOn() : null;
      if (!tenantId || !addOn?.secretsEncrypted) throw new ApiError(404, 'billing.not_configured', 'No stripe add-on receives webhooks here.');
      const { webhookSecret } = JSON.parse(decrypt(deps.masterKey, addOn.secretsEncrypted)) as { webhookSecret: string };
      let event: Stripe.Event;
      try {
        event = (await stripeWebhooks()).constructEvent(rawBody, signature ?? '', webhookSecret);
      } catch (error) {
        throw new ApiError(400, 'stripe.signature_invalid', `The Stripe-Signature header does not verify: ${(error as Error).message}`);
      }
      const scope = { tenantId, environmentId };
      return pool.transaction(async (trx) => {
        if (!(await createBillingStripeQueries(trx, environmentId).claimEvent(event.id, event.type))) return { received: true as const, outcome: 'duplicate' };
        if (event.type.startsWith('customer.subscription.')) {
          const outcome = await applyStripeSubscription(trx, scope, event.data.object as Stripe.Subscription, { eventId: event.id, at: event.created });
          return { received: true as const, outcome };
        }
        if (event.type.startsWith('invoice.')) return { received: true as const, outcome: await recordInvoice(trx, scope, event) };
        return { received: true as const, outcome: 'ignored: not a subscription or invoice event' };
      });
    },
  };
}
