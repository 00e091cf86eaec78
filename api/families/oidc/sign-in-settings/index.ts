import { defineFamily } from '../../family.ts';
import { signInSettingsRoutes } from './routes.ts';
import { createSignInSettingsService } from './service.ts';

export default defineFamily({
  name: 'oidc/sign-in-settings',
  register: (app, { pool }) => signInSettingsRoutes(app, createSignInSettingsService(pool)),
});
