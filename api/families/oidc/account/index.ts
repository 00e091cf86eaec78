// The signed-in user's own account at the environment's provider (`{issuer}/account/…`): the password change.
import { defineFamily } from '../../family.ts';
import { createPasswordChangeService } from '../../../account/password-change.ts';
import { accountRoutes } from './routes.ts';

export default defineFamily({
  name: 'oidc/account',
  register: (app, { pool, oidc, passwordPolicy, config, rateWindows }) => {
    const logout = { publicBaseUrl: config.publicBaseUrl, scheduleMs: config.backChannelLogout.scheduleMs };
    accountRoutes(app, { oidc, passwords: createPasswordChangeService({ pool, logout, policy: passwordPolicy, windows: rateWindows }) });
  },
});
