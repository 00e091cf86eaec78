// The environment's MFA policy as the sign-in pages apply it: whether a user must (or may) use a second factor, and
// "remember this device" (a signed value, lib/mfa/remember-device.ts, valid for the session config's
// `rememberDeviceSeconds`, read on every call so that a change applies from the next sign-in on every instance).
import type { DatabasePool } from 'slonik';
import { readRememberDevice, rememberDeviceKey, signRememberDevice } from '../../lib/mfa/remember-device.ts';
import { createMfaRoleQueries } from '../../db/mfa/roles.ts';
import { createTotpFactorQueries } from '../../db/mfa/totp-factors.ts';
import { createMfaSettingsQueries, type MfaMode } from '../../db/mfa/settings.ts';
import { createOidcSettingsQueries } from '../../db/oidc/settings/queries.ts';
import { effectiveSessionConfig } from '../../lib/oidc/session-config.ts';
import { refuse, type MfaEnv } from './context.ts';

export function createMfaPolicyService(pool: DatabasePool, masterKey: Buffer, now: () => number) {
  const key = rememberDeviceKey(masterKey);
  const settingsOf = (env: MfaEnv) => createMfaSettingsQueries(pool, env.environmentId).find();
  const rememberSecondsOf = async (env: MfaEnv) =>
    effectiveSessionConfig(await createOidcSettingsQueries(pool, env.environmentId).sessionConfig()).rememberDeviceSeconds;
  const factorOf = async (env: MfaEnv, userId: string) => (await createTotpFactorQueries(pool, env.environmentId).confirmedOf(userId))?.id ?? null;

  return {
    /**
     * What the policy asks of the user: `off` (no second factor offered), `optional` (offered, the user chooses) or
     * `required`. Mode `required` requires it of everyone; mode `optional` requires it of holders of a role in
     * `requiredRoleKeys` (assigned to the user or one of its groups, granted by an active elevate grant, or
     * inherited from a role they hold).
     */
    mfaRequirement: async (env: MfaEnv, userId: string): Promise<MfaMode> => {
      const { mode, requiredRoleKeys } = await settingsOf(env);
      if (mode !== 'optional') return mode;
      return (await createMfaRoleQueries(pool, env.environmentId).holdsAny(userId, requiredRoleKeys)) ? 'required' : 'optional';
    },

    /**
     * A value for the "remember this device" cookie after the user passed the second factor, valid for the session
     * config's `rememberDeviceSeconds` (`maxAgeSeconds`, for the cookie); null when it does not remember devices.
     */
    rememberDeviceToken: async (env: MfaEnv, userId: string): Promise<{ value: string; expiresAt: string; maxAgeSeconds: number } | null> => {
      const seconds = await rememberSecondsOf(env);
      if (seconds === null) return null;
      const issuedAtMs = now();
      const expiresAtMs = issuedAtMs + seconds * 1000;
      const factorId = await factorOf(env, userId);
      const value = signRememberDevice(key, { environmentId: env.environmentId, userId, factorId, issuedAtMs, expiresAtMs });
      return { value, expiresAt: new Date(expiresAtMs).toISOString(), maxAgeSeconds: seconds };
    },

    /**
     * Whether the cookie's value lets this user skip the second factor here: signed by this service, for this
     * environment and user, not expired, younger than the session config's current lifetime (false once it no
     * longer remembers devices), and issued while the user had the authenticator they have now (removing or
     * replacing it forgets the device). A value that is tampered or names another user or environment emits
     * `user.mfa_failed` (`remember_device`, `invalid`); an expired one is simply false.
     */
    checkRememberDevice: async (env: MfaEnv, userId: string, value: string): Promise<boolean> => {
      const device = readRememberDevice(key, value);
      if (!device || device.environmentId !== env.environmentId || device.userId !== userId) {
        await refuse(pool, env, userId, 'remember_device', 'verification', 'invalid');
        return false;
      }
      const seconds = await rememberSecondsOf(env);
      const at = now();
      if (seconds === null || device.expiresAtMs <= at || device.issuedAtMs + seconds * 1000 <= at) return false;
      return device.factorId === (await factorOf(env, userId));
    },
  };
}
