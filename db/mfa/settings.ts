// An environment's MFA policy (mfa_settings, 0029, 0034): no row is mode `off`, no roles, no emailed code as a second
// factor. How long a device is remembered is the session config's (0038 moved it there).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { nullableTimestamp } from '../shared/rows.ts';

export const MFA_MODES = ['off', 'optional', 'required'] as const;
export type MfaMode = (typeof MFA_MODES)[number];

export const MfaSettings = z.object({
  mode: z.enum(MFA_MODES),
  requiredRoleKeys: z.array(z.string()),
  emailCodeSecondFactor: z.boolean(),
  updatedAt: nullableTimestamp,
});
export type MfaSettings = z.infer<typeof MfaSettings>;
export type MfaPolicy = Omit<MfaSettings, 'updatedAt'>;

export const DEFAULT_MFA_SETTINGS: MfaSettings = {
  mode: 'off',
  requiredRoleKeys: [],
  emailCodeSecondFactor: false,
  updatedAt: null,
};

const columns = sql.fragment`mode, required_role_keys AS "requiredRoleKeys", email_code_second_factor AS "emailCodeSecondFactor",
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`;

/** The MFA policy of one environment: every statement is bound to `environmentId`. */
export function createMfaSettingsQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: async (lock = false): Promise<MfaSettings> =>
      (await db.maybeOne(sql.type(MfaSettings)`
        SELECT ${columns} FROM mfa_settings WHERE environment_id = ${environmentId} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`)) ??
      DEFAULT_MFA_SETTINGS,

    save: (policy: MfaPolicy) =>
      db.one(sql.type(MfaSettings)`
        INSERT INTO mfa_settings (environment_id, mode, required_role_keys, email_code_second_factor)
        VALUES (${environmentId}, ${policy.mode}, ${sql.array(policy.requiredRoleKeys, 'text')}, ${policy.emailCodeSecondFactor})
        ON CONFLICT (environment_id) DO UPDATE SET mode = EXCLUDED.mode, required_role_keys = EXCLUDED.required_role_keys,
          email_code_second_factor = EXCLUDED.email_code_second_factor, updated_at = now()
        RETURNING ${columns}`),
  };
}
