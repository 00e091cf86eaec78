// SMS providers of one environment. Secrets stay sealed here; the service decides what leaves.
import { sql, type CommonQueryMethods } from 'slonik';
import { SmsProviderRecord, type SmsProviderKind } from './rows.ts';

const columns = sql.fragment`
  p.id, p.environment_id AS "environmentId", p.provider, p.active, p.rank, p.config, p.secret_hints AS "secretHints",
  p.secrets_encrypted AS "secretsEncrypted", p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

export interface SmsProviderFields {
  active: boolean;
  rank: number;
  config: Record<string, unknown>;
  secretsEncrypted: string;
  secretHints: Record<string, string>;
}

export function createSmsProviderQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** By failover rank, lowest first. */
    list: async () => [
      ...(await db.any(sql.type(SmsProviderRecord)`
        SELECT ${columns} FROM environment_sms_providers p WHERE p.environment_id = ${environmentId} ORDER BY p.rank, p.created_at, p.id`)),
    ],

    find: (provider: SmsProviderKind) =>
      db.maybeOne(sql.type(SmsProviderRecord)`
        SELECT ${columns} FROM environment_sms_providers p WHERE p.environment_id = ${environmentId} AND p.provider = ${provider}`),

    /** The rank after the last provider: where a new one goes when its save names none. */
    nextRank: () =>
      db.oneFirst(
        sql.unsafe`SELECT coalesce(max(rank) + 1, 0)::int AS n FROM environment_sms_providers WHERE environment_id = ${environmentId}`,
      ) as Promise<number>,

    upsert: (provider: SmsProviderKind, f: SmsProviderFields) =>
      db.one(sql.type(SmsProviderRecord)`
        WITH saved AS (
          INSERT INTO environment_sms_providers AS p (environment_id, provider, active, rank, config, secrets_encrypted, secret_hints)
          VALUES (${environmentId}, ${provider}, ${f.active}, ${f.rank}, ${sql.jsonb(f.config as never)}, ${f.secretsEncrypted},
            ${sql.jsonb(f.secretHints)})
          ON CONFLICT (environment_id, provider) DO UPDATE SET active = EXCLUDED.active, rank = EXCLUDED.rank, config = EXCLUDED.config,
            secrets_encrypted = EXCLUDED.secrets_encrypted, secret_hints = EXCLUDED.secret_hints, updated_at = now()
          RETURNING *
        )
        SELECT ${columns} FROM saved p`),

    delete: (provider: SmsProviderKind) =>
      db.query(sql.unsafe`DELETE FROM environment_sms_providers WHERE environment_id = ${environmentId} AND provider = ${provider}`),
  };
}
