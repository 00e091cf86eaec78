import { defineFamily } from '../../family.ts';
import { createAddOnService } from './service.ts';
import { addOnRoutes } from './routes.ts';

export default defineFamily({
  name: 'projects/add-ons',
  register: (app, { pool, masterKey, config }) =>
    addOnRoutes(
      app,
      createAddOnService({ pool, masterKey, outbound: { allowPrivate: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs } }),
    ),
});
