// A signed-in user changes their own password (`POST {issuer}/account/password`, Logto's Account API shape): the
// current password verified with argon2, the new one through the environment's password policy, then the hash set
// with its audit entry and `user.password_changed` in one transaction. Wrong current passwords are counted per user
// across every instance (api/rate-limits/shared-windows.ts, like the credential rate limits): after MAX_WRONG in the
// window the user's changes are 429 until it ends, before any verification. Other sessions are kept unless the user asks to end them, as Auth0
// and Logto do (Keycloak's "sign out other devices" is the option).
import type { DatabasePool } from 'slonik';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { createAccountQueries } from '../../db/oidc/account/queries.ts';
import { createPasswordQueries } from '../../db/directory/passwords/queries.ts';
import { recordChange, type Change, type RequestOrigin } from '../../db/shared/changes.ts';
import type { EventType } from '../../db/event-catalog.ts';
import { ApiError } from '../errors.ts';
import { rateLimited } from '../plugins/rate-window.ts';
import type { SharedWindows } from '../rate-limits/shared-windows.ts';
import type { PasswordPolicy, PasswordWarning } from '../passwords/policy.ts';
import { passwordRefused } from '../passwords/refused.ts';
import { passwordAuthEnabled, passwordDisabled } from '../passwords/enabled.ts';
import { createHomeRealm } from '../families/oidc/sign-in/home-realm.ts';
import type { BackChannelLogoutSettings } from '../families/directory/sessions/back-channel.ts';
import { revokeSessions } from '../families/directory/sessions/service.ts';
import type { AccountToken } from './access-token.ts';

/** Wrong current passwords a user may give per window before their changes are refused. */
export const MAX_WRONG = 5;
export const WRONG_WINDOW_MS = 15 * 60_000;

export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
  signOutOtherSessions?: boolean;
}

const wrongPassword = () =>
  new ApiError(400, 'account.wrong_password', 'Invalid request: body.currentPassword is not the user’s current password.', {
    details: [{ path: 'body.currentPassword', message: 'is not the user’s current password' }],
  });

export function createPasswordChangeService(deps: { pool: DatabasePool; logout: BackChannelLogoutSettings; policy: PasswordPolicy; windows: SharedWindows }) {
  const { pool, policy, windows } = deps;
  const homeRealm = createHomeRealm(pool);

  /** The audit entry and event of a change the token's user made, in `db`'s transaction. */
  const recordAs = <T extends EventType>(
    db: Parameters<typeof recordChange>[0],
    token: AccountToken,
    origin: RequestOrigin,
    change: Omit<Change<T>, 'actor' | 'origin' | 'scope'>,
  ) =>
    recordChange<T>(db, {
      ...change,
      actor: { type: 'user', id: token.userId },
      origin,
      scope: { tenantId: token.tenantId, environmentId: token.environmentId },
    });

  return {
    /** Changes the token's user's password (with the policy's warning, if any), or throws the 4xx saying why nothing changed. */
    change: async (token: AccountToken, input: PasswordChange, origin: RequestOrigin): Promise<{ warning?: PasswordWarning | undefined }> => {
      const { environmentId, userId } = token;
      const user = await createAccountQueries(pool, environmentId).findUser(userId);
      if (!user?.active) {
        throw new ApiError(401, 'auth.invalid_token', 'The access token is not valid here: its user is deactivated or gone.', {
          headers: { 'www-authenticate': 'Bearer realm="iam", error="invalid_token", error_description="its user is deactivated or gone"' },
        });
      }
      if (await homeRealm.requiredFor(environmentId, user.email)) {
        throw new ApiError(403, 'account.sso_required', 'This user signs in through their organization’s single sign-on and has no password here to change.');
      }
      if (!(await passwordAuthEnabled(pool, environmentId))) throw passwordDisabled(403);
      if (!user.hash) throw new ApiError(409, 'account.no_password', 'This user has no password to change; they set one through “Forgot your password?”.');

      const key = `pwchange:${environmentId}:${userId}`;
      const window = await windows.peek(key, MAX_WRONG);
      if (window && window.count >= MAX_WRONG) throw rateLimited(MAX_WRONG, WRONG_WINDOW_MS, window, 'Too many wrong current passwords for this user');
      if (!(await verifyPassword(user.hash, input.currentPassword))) {
        await windows.hit(key, MAX_WRONG, WRONG_WINDOW_MS);
        await pool.transaction((trx) =>
          recordAs(trx, token, origin, {
            action: 'user.password_change_failed',
            resource: { type: 'user', id: userId },
            event: { type: 'user.password_change_failed', data: { userId, clientId: token.clientId, reason: 'wrong_password', ip: origin.ip ?? null } },
          }),
        );
        throw wrongPassword();
      }

      const scope = { tenantId: token.tenantId, environmentId };
      const check = { purpose: 'change' as const, userId, userName: user.userName, email: user.email, origin };
      const { refusal, warning } = await policy.check(scope, input.newPassword, check);
      if (refusal) throw passwordRefused('body.newPassword', refusal);

      const hash = await hashPassword(input.newPassword);
      const signOut = input.signOutOtherSessions === true;
      await pool.transaction(async (trx) => {
        // Changed by another request since it was verified: the password given is no longer the current one.
        if ((await createAccountQueries(trx, environmentId).lockHash(userId)) !== user.hash) throw wrongPassword();
        await createPasswordQueries(trx, environmentId).setPassword(userId, hash);
        await recordAs(trx, token, origin, {
          action: 'user.password_changed',
          resource: { type: 'user', id: userId },
          event: { type: 'user.password_changed', data: { userId, clientId: token.clientId, signedOutOtherSessions: signOut } },
        });
        if (!signOut) return;
        const revoked = await revokeSessions(trx, scope, deps.logout, userId, { exceptUid: token.sessionUid });
        for (const session of revoked) {
          await recordAs(trx, token, origin, {
            action: 'session.revoke',
            resource: { type: 'session', id: session.id },
            before: { revokedAt: null },
            after: { revokedAt: session.revokedAt },
            event: { type: 'session.revoked', data: { session } },
          });
        }
      });
      return { warning };
    },
  };
}

export type PasswordChangeService = ReturnType<typeof createPasswordChangeService>;
