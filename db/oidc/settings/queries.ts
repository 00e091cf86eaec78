// An environment's OpenID provider settings (oidc_settings): here, its session config. No row is an empty config;
// a save notifies `iam_oidc` (0027), so every instance rebuilds the environment's Provider with it.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const StoredSessionConfig = z.record(z.string(), z.unknown());
export type StoredSessionConfig = z.infer<typeof StoredSessionConfig>;

const Row = z.object({ config: StoredSessionConfig });

/** Queries of one environment's provider settings: every statement is bound to `environmentId`. */
export function createOidcSettingsQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    sessionConfig: async (): Promise<StoredSessionConfig> =>
      (await db.maybeOneFirst(sql.type(Row)`
        SELECT session_config AS config FROM oidc_settings WHERE environment_id = ${environmentId}`)) ?? {},

    saveSessionConfig: (config: StoredSessionConfig) =>
      db.query(sql.unsafe`
        INSERT INTO oidc_settings (environment_id, session_config) VALUES (${environmentId}, ${sql.jsonb(config as never)})
        ON CONFLICT (environment_id) DO UPDATE SET session_config = EXCLUDED.session_config, updated_at = now()`),
  };
}
