import { defineFamily } from '../../family.ts';
import { createEmailProviderService } from '../../../email-providers/service.ts';
import { emailProviderRoutes } from './routes.ts';

export default defineFamily({
  name: 'projects/email-providers',
  register: (app, { pool, masterKey, config }) =>
    emailProviderRoutes(
      app,
      createEmailProviderService({ pool, masterKey, allowPrivate: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs }),
    ),
});
