import { defineFamily } from '../../family.ts';
import { createClaimMappingService } from './claim-mappings.ts';
import { oidcSettingRoutes } from './routes.ts';
import { createSessionConfigService } from './session-config.ts';

export default defineFamily({
  name: 'oidc/settings',
  register: (app, { pool }) => oidcSettingRoutes(app, createClaimMappingService(pool), createSessionConfigService(pool)),
});
