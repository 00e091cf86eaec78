// An environment's OIDC provider settings that this folder owns: whether RFC 7591 dynamic client registration is
// open (`oidc_settings.dynamic_registration`, migration 0027). No row = closed. A change sends `iam_oidc` (trigger),
// so every instance rebuilds the environment's Provider with or without its registration endpoint.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Row = z.object({ dynamicRegistration: z.boolean(), updatedAt: z.string().nullable() });
export type OidcRegistrationSettings = z.infer<typeof Row>;

/** Queries of one environment's registration setting: every statement is bound to `environmentId`. */
export function createOidcRegistrationSettingsQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: async (): Promise<OidcRegistrationSettings> =>
      (await db.maybeOne(sql.type(Row)`
        SELECT dynamic_registration AS "dynamicRegistration", updated_at AS "updatedAt" FROM oidc_settings WHERE environment_id = ${environmentId}`)) ?? {
        dynamicRegistration: false,
        updatedAt: null,
      },

    save: (dynamicRegistration: boolean) =>
      db.one(sql.type(Row)`
        INSERT INTO oidc_settings (environment_id, dynamic_registration) VALUES (${environmentId}, ${dynamicRegistration})
        ON CONFLICT (environment_id) DO UPDATE SET dynamic_registration = EXCLUDED.dynamic_registration, updated_at = now()
        RETURNING dynamic_registration AS "dynamicRegistration", updated_at AS "updatedAt"`),
  };
}
