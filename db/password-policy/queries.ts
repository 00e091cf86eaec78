// An environment's password policy (password_policies, 0041): no row means the service's default rules and password
// sign-in on.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts';
import { isoTimestamp, uuid } from '../shared/rows.ts';

export const PasswordPolicyRow = z.object({
  id: uuid,
  minLength: z.number().int(),
  requireLowercase: z.boolean(),
  requireUppercase: z.boolean(),
  requireNumber: z.boolean(),
  requireSymbol: z.boolean(),
  passwordAuthEnabled: z.boolean(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type PasswordPolicyRow = z.infer<typeof PasswordPolicyRow>;

/** What an environment's policy says; the same for a stored row and for the default. */
export type PasswordPolicySettings = Omit<PasswordPolicyRow, 'id' | 'createdAt' | 'updatedAt'>;

export const DEFAULT_PASSWORD_POLICY: PasswordPolicySettings = {
  minLength: PASSWORD_MIN_LENGTH,
  requireLowercase: false,
  requireUppercase: false,
  requireNumber: false,
  requireSymbol: false,
  passwordAuthEnabled: true,
};

const columns = sql.fragment`id, min_length AS "minLength", require_lowercase AS "requireLowercase",
  require_uppercase AS "requireUppercase", require_number AS "requireNumber", require_symbol AS "requireSymbol",
  password_auth_enabled AS "passwordAuthEnabled", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The password policy of one environment: every statement is bound to `environmentId`. */
export function createPasswordPolicyQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: (lock = false): Promise<PasswordPolicyRow | null> =>
      db.maybeOne(sql.type(PasswordPolicyRow)`
        SELECT ${columns} FROM password_policies WHERE environment_id = ${environmentId} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    save: (p: PasswordPolicySettings) =>
      db.one(sql.type(PasswordPolicyRow)`
        INSERT INTO password_policies (environment_id, min_length, require_lowercase, require_uppercase, require_number,
          require_symbol, password_auth_enabled)
        VALUES (${environmentId}, ${p.minLength}, ${p.requireLowercase}, ${p.requireUppercase}, ${p.requireNumber},
          ${p.requireSymbol}, ${p.passwordAuthEnabled})
        ON CONFLICT (environment_id) DO UPDATE SET min_length = EXCLUDED.min_length,
          require_lowercase = EXCLUDED.require_lowercase, require_uppercase = EXCLUDED.require_uppercase,
          require_number = EXCLUDED.require_number, require_symbol = EXCLUDED.require_symbol,
          password_auth_enabled = EXCLUDED.password_auth_enabled, updated_at = now()
        RETURNING ${columns}`),
  };
}

/** The settings in force in the environment: its row's, or the default. */
export async function passwordPolicySettingsOf(db: CommonQueryMethods, environmentId: string): Promise<PasswordPolicySettings> {
  const row = await createPasswordPolicyQueries(db, environmentId).find();
  return row ? settingsOf(row) : DEFAULT_PASSWORD_POLICY;
}

export const settingsOf = ({ minLength, requireLowercase, requireUppercase, requireNumber, requireSymbol, passwordAuthEnabled }: PasswordPolicySettings) => ({
  minLength,
  requireLowercase,
  requireUppercase,
  requireNumber,
  requireSymbol,
  passwordAuthEnabled,
});
