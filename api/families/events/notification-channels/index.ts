import { defineFamily } from '../../family.ts';
import { notificationChannelRoutes } from './routes.ts';
import { createNotificationChannelService } from './service.ts';

export default defineFamily({
  name: 'events/notification-channels',
  register: (app, { pool, masterKey, config }) =>
    notificationChannelRoutes(
      app,
      createNotificationChannelService({
        pool,
        masterKey,
        allowPrivateNetworkTargets: config.allowPrivateNetworkTargets,
        timeoutMs: config.webhooks.timeoutMs,
        baseUrls: config.providers,
      }),
    ),
});
