import { defineFamily } from '../../family.ts';
import { createAuthzenSettingsService } from './authzen.ts';
import { createConnectionService } from './connections.ts';
import { environmentSettingRoutes } from './routes.ts';
import { createEnvironmentSettingsService } from './service.ts';

export default defineFamily({
  name: 'projects/environment-settings',
  register: (app, { pool, masterKey, config }) =>
    environmentSettingRoutes(
      app,
      createConnectionService({ pool, masterKey, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets }),
      createEnvironmentSettingsService({ pool, masterKey, publicBaseUrl: config.publicBaseUrl, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets }),
      createAuthzenSettingsService(pool),
    ),
});
