// The signed-in user's own account at the environment's provider (`{issuer}/account/…`): the password change.
import { defineFamily } from '../../family.ts';
import { createPasswordChangeService } from '../../../account/password-change.ts';
import { accountRoutes } from './routes.ts';

export default defineFamily({
  name: 'oidc/account',
  register: (app, { pool, oidc, passwordPolicy, rateWindows }) =>
    accountRoutes(app, { oidc, passwords: createPasswordChangeService({ pool, oidc, policy: passwordPolicy, log: app.log, windows: rateWindows }) }),
});
