// Stripe's webhook endpoint for an environment: public (Stripe signs each delivery with the endpoint's signing
// secret, the `stripe` add-on's `webhookSecret`). The raw body is kept by a parser of this route's own plugin: the
// signature covers the exact bytes Stripe sent.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../../common/schemas.ts';
import { keepRawBody } from '../../../common/raw-body.ts';
import type { App } from '../../../types.ts';
import { tags } from './catalog-routes.ts';
import type { createStripeWebhookService } from './stripe-webhook.ts';

const Params = z.strictObject({ environment: z.uuid().describe('The environment whose `stripe` add-on signs the deliveries') });
const Received = z
  .object({
    received: z.literal(true),
    outcome: z.string().describe('`changed`, `unchanged`, `recorded`, `duplicate` (an event id seen before) or `ignored: <why>`'),
  })
  .meta({ id: 'StripeWebhookResponse' });

export function stripeWebhookRoute(app: App, service: ReturnType<typeof createStripeWebhookService>) {
  return app.register(async (plugin) => {
    const rawBodyOf = keepRawBody(plugin, 'application/json', (text) => JSON.parse(text), { bodyLimit: 1024 * 1024 });
    plugin.withTypeProvider<ZodTypeProvider>().post('/v1/billing/stripe/:environment/webhook', {
      config: { public: true, credentialParam: 'environment' },
      schema: {
        tags,
        operationId: 'receiveStripeWebhook',
        summary: 'Receive Stripe webhooks',
        description:
          'The endpoint URL to register in Stripe for an environment (`{environment}` is its id). Verified with the Stripe SDK’s `constructEvent` against the `stripe` add-on’s ' +
          '`webhookSecret` (400 `stripe.signature_invalid` otherwise; 404 without a stripe add-on). `customer.subscription.*` events update the ' +
          'organization’s subscription and entitlements (the subscription’s `metadata.organizationId` names the organization); `invoice.*` events are ' +
          'recorded as `billing.invoice.updated`. Each Stripe event id is applied once.',
        params: Params,
        response: { 200: Received, ...errorResponses(404) },
      },
      handler: (request) => service.receive(request.params.environment, rawBodyOf(request), request.headers['stripe-signature'] as string | undefined),
    });
  });
}
