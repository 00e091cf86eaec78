import { defineFamily } from '../../family.ts';
import { createSmsProviderService } from '../../../sms-providers/service.ts';
import { smsProviderRoutes } from './routes.ts';

export default defineFamily({
  name: 'projects/sms-providers',
  register: (app, { pool, masterKey, config }) =>
    smsProviderRoutes(
      app,
      createSmsProviderService({ pool, masterKey, transport: { allowPrivate: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs } }),
    ),
});
