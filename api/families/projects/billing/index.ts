import { defineFamily } from '../../family.ts';
import { createBillingCatalogService } from './catalog-service.ts';
import { billingCatalogRoutes } from './catalog-routes.ts';
import { createBillingSubscriptionService } from './subscriptions-service.ts';
import { billingSubscriptionRoutes } from './subscription-routes.ts';
import { createStripeWebhookService } from './stripe-webhook.ts';
import { stripeWebhookRoute } from './webhook-route.ts';

export default defineFamily({
  name: 'projects/billing',
  register: async (app, { pool, masterKey, config, entitlements }) => {
    billingCatalogRoutes(app, createBillingCatalogService(pool));
    billingSubscriptionRoutes(app, createBillingSubscriptionService({ pool, syncIntervalMs: config.billing.syncIntervalMs, entitlements }));
    await stripeWebhookRoute(app, createStripeWebhookService({ pool, masterKey }));
  },
});
