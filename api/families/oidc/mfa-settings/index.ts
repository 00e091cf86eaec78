import { defineFamily } from '../../family.ts';
import { mfaSettingRoutes } from './routes.ts';
import { createMfaSettingsService } from './service.ts';

export default defineFamily({
  name: 'oidc/mfa-settings',
  register: (app, { pool }) => mfaSettingRoutes(app, createMfaSettingsService(pool)),
});
