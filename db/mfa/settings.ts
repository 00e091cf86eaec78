// An environment's MFA policy (mfa_settings, 0029, 0034, 0046): no row is mode `off`, no roles, no emailed or texted
// code as a second factor, the default SMS rates. How long a device is remembered is the session config's (0038 moved it there).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { nullableTimestamp } from '../shared/rows.ts';

export const MFA_MODES = ['off', 'optional', 'required'] as const;
export type MfaMode = (typeof MFA_MODES)[number];

export const MfaSettings = z.object({
  mode: z.enum(MFA_MODES),
  requiredRoleKeys: z.array(z.string()),
  emailCodeSecondFactor: z.boolean(),
  smsSecondFactor: z.boolean(),
  smsRateLimit: z.object({ perEnvironmentPerHour: z.number().int(), perNumberPerHour: z.number().int() }),
  updatedAt: nullableTimestamp,
});
export type MfaSettings = z.infer<typeof MfaSettings>;
export type MfaPolicy = Omit<MfaSettings, 'updatedAt'>;

export const DEFAULT_MFA_SETTINGS: MfaSettings = {
  mode: 'off',
  requiredRoleKeys: [],
  emailCodeSecondFactor: false,
  smsSecondFactor: false,
  smsRateLimit: { perEnvironmentPerHour: 300, perNumberPerHour: 5 },
  updatedAt: null,
};

const columns = sql.fragment`mode, required_role_keys AS "requiredRoleKeys", email_code_second_factor AS "emailCodeSecondFactor",
  sms_second_factor AS "smsSecondFactor",
  json_build_object('perEnvironmentPerHour', sms_per_environment_per_hour, 'perNumberPerHour', sms_per_number_per_hour) AS "smsRateLimit",
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
        INSERT INTO mfa_settings (environment_id, mode, required_role_keys, email_code_second_factor, sms_second_factor,
          sms_per_environment_per_hour, sms_per_number_per_hour)
        VALUES (${environmentId}, ${policy.mode}, ${sql.array(policy.requiredRoleKeys, 'text')}, ${policy.emailCodeSecondFactor},
          ${policy.smsSecondFactor}, ${policy.smsRateLimit.perEnvironmentPerHour}, ${policy.smsRateLimit.perNumberPerHour})
        ON CONFLICT (environment_id) DO UPDATE SET mode = EXCLUDED.mode, required_role_keys = EXCLUDED.required_role_keys,
          email_code_second_factor = EXCLUDED.email_code_second_factor, sms_second_factor = EXCLUDED.sms_second_factor,
          sms_per_environment_per_hour = EXCLUDED.sms_per_environment_per_hour, sms_per_number_per_hour = EXCLUDED.sms_per_number_per_hour,
          updated_at = now()
        RETURNING ${columns}`),
  };
}
