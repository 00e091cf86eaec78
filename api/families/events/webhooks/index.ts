import { defineFamily } from '../../family.ts';
import { createDeliveryService } from './deliveries.ts';
import { webhookRoutes } from './routes.ts';
import { createWebhookService } from './service.ts';

export default defineFamily({
  name: 'events/webhooks',
  register: (app, { pool, masterKey, config }) => {
    const webhooks = createWebhookService({
      pool,
      masterKey,
      allowPrivateNetworkTargets: config.allowPrivateNetworkTargets,
      secretOverlapMs: config.webhooks.secretOverlapMs,
      maxEndpointsPerTenant: config.webhooks.limits.endpointsPerTenant,
    });
    webhookRoutes(app, webhooks, createDeliveryService(pool, webhooks));
  },
});
