// Queries of one environment's email providers: every statement is bound to `environmentId`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { EnvironmentEmailProvider } from './rows.ts';

const columns = sql.fragment`
  id, environment_id AS "environmentId", provider, active, config, secret_hints AS "secretHints",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface EmailProviderWrite {
  config: Record<string, unknown>;
  secretsEncrypted: string;
  secretHints: Record<string, string>;
}

export function createEmailProviderQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    list: () => db.any(sql.type(EnvironmentEmailProvider)`SELECT ${columns} FROM email_providers WHERE environment_id = ${environmentId} ORDER BY provider`),

    find: (provider: string) =>
      db.maybeOne(sql.type(EnvironmentEmailProvider)`
        SELECT ${columns} FROM email_providers WHERE environment_id = ${environmentId} AND provider = ${provider}`),

    findSecretsEncrypted: (provider: string) =>
      db.maybeOneFirst(sql.type(z.object({ secrets: z.string() }))`
        SELECT secrets_encrypted AS secrets FROM email_providers WHERE environment_id = ${environmentId} AND provider = ${provider}`),

    /** Locks every provider row of the environment (activation changes two of them). */
    lockAll: () => db.query(sql.unsafe`SELECT 1 FROM email_providers WHERE environment_id = ${environmentId} FOR UPDATE`),

    upsert: (provider: string, w: EmailProviderWrite) =>
      db.one(sql.type(EnvironmentEmailProvider)`
        INSERT INTO email_providers (environment_id, provider, config, secrets_encrypted, secret_hints)
        VALUES (${environmentId}, ${provider}, ${sql.jsonb(w.config as never)}, ${w.secretsEncrypted}, ${sql.jsonb(w.secretHints)})
        ON CONFLICT (environment_id, provider) DO UPDATE SET config = EXCLUDED.config, secrets_encrypted = EXCLUDED.secrets_encrypted,
          secret_hints = EXCLUDED.secret_hints, updated_at = now()
        RETURNING ${columns}`),

    /** Makes `provider` the only active one (or inactive); answers the provider that was active before, if another. */
    setActive: async (provider: string, active: boolean) => {
      const deactivated = active
        ? await db.maybeOneFirst(sql.type(z.object({ provider: z.string() }))`
            UPDATE email_providers SET active = false, updated_at = now()
            WHERE environment_id = ${environmentId} AND active AND provider <> ${provider} RETURNING provider`)
        : null;
      const row = await db.one(sql.type(EnvironmentEmailProvider)`
        UPDATE email_providers SET active = ${active}, updated_at = now()
        WHERE environment_id = ${environmentId} AND provider = ${provider} RETURNING ${columns}`);
      return { row, deactivated };
    },

    remove: (provider: string) => db.query(sql.unsafe`DELETE FROM email_providers WHERE environment_id = ${environmentId} AND provider = ${provider}`),
  };
}
