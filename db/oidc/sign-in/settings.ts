// An environment's sign-in page settings (sign_in_settings, 0028; email codes 0033): branding, sign-up, default locale,
// the email code factor. No row: the
// defaults. A save notifies `iam_oidc` (trigger), so every instance rebuilds the environment's Provider snapshot.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { nullableTimestamp } from '../../shared/rows.ts';

export const SignInSettings = z.object({
  displayName: z.string().nullable(),
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  backgroundColor: z.string().nullable(),
  signUpEnabled: z.boolean(),
  defaultLocale: z.enum(['en', 'de', 'fr']).nullable(),
  emailCodeEnabled: z.boolean(),
});
export type SignInSettings = z.infer<typeof SignInSettings>;

export const DEFAULT_SIGN_IN_SETTINGS: SignInSettings = {
  displayName: null,
  logoUrl: null,
  primaryColor: null,
  backgroundColor: null,
  signUpEnabled: false,
  defaultLocale: null,
  emailCodeEnabled: false,
};

const Row = SignInSettings.extend({ updatedAt: nullableTimestamp });

/** Queries of one environment's sign-in settings: every statement is bound to `environmentId`. */
export function createSignInSettingsQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: () =>
      db.maybeOne(sql.type(Row)`
        SELECT display_name AS "displayName", logo_url AS "logoUrl", primary_color AS "primaryColor", background_color AS "backgroundColor",
          sign_up_enabled AS "signUpEnabled", default_locale AS "defaultLocale", email_code_enabled AS "emailCodeEnabled",
          to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"
        FROM sign_in_settings WHERE environment_id = ${environmentId}`),

    save: (s: SignInSettings) =>
      db.one(sql.type(Row)`
        INSERT INTO sign_in_settings (environment_id, display_name, logo_url, primary_color, background_color, sign_up_enabled, default_locale,
          email_code_enabled)
        VALUES (${environmentId}, ${s.displayName}, ${s.logoUrl}, ${s.primaryColor}, ${s.backgroundColor}, ${s.signUpEnabled}, ${s.defaultLocale},
          ${s.emailCodeEnabled})
        ON CONFLICT (environment_id) DO UPDATE SET display_name = EXCLUDED.display_name, logo_url = EXCLUDED.logo_url,
          primary_color = EXCLUDED.primary_color, background_color = EXCLUDED.background_color, sign_up_enabled = EXCLUDED.sign_up_enabled,
          default_locale = EXCLUDED.default_locale, email_code_enabled = EXCLUDED.email_code_enabled, updated_at = now()
        RETURNING display_name AS "displayName", logo_url AS "logoUrl", primary_color AS "primaryColor", background_color AS "backgroundColor",
          sign_up_enabled AS "signUpEnabled", default_locale AS "defaultLocale", email_code_enabled AS "emailCodeEnabled",
          to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`),
  };
}
