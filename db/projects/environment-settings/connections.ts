// Sign-in connections of an environment, ordered by rank. Secrets stay sealed here; services decide what leaves.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ConnectionRecord } from '../projects/rows.ts';

const columns = sql.fragment`
  c.id, c.environment_id AS "environmentId", c.provider_id AS "providerId", c.name, c.config, c.secrets_encrypted AS "secretsEncrypted",
  c.active, c.rank, c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

export interface ConnectionFields {
  providerId: string;
  name: string;
  config: Record<string, unknown>;
  secretsEncrypted: string | null;
}

export function createConnectionQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) =>
    db.one(sql.type(ConnectionRecord)`SELECT ${columns} FROM environment_connections c WHERE c.environment_id = ${environmentId} AND c.id = ${id}`);
  return {
    findByEnvironment: async () => [
      ...(await db.any(sql.type(ConnectionRecord)`
        SELECT ${columns} FROM environment_connections c WHERE c.environment_id = ${environmentId} ORDER BY c.rank, c.created_at, c.id`)),
    ],

    find: (id: string) =>
      db.maybeOne(sql.type(ConnectionRecord)`SELECT ${columns} FROM environment_connections c WHERE c.id = ${id} AND c.environment_id = ${environmentId}`),

    countActive: () =>
      db.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM environment_connections WHERE environment_id = ${environmentId} AND active`),

    /** Appends the connection after the last one; the caller holds the environment's row lock. */
    insert: async (c: ConnectionFields) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO environment_connections (environment_id, provider_id, name, config, secrets_encrypted, rank)
        VALUES (${environmentId}, ${c.providerId}, ${c.name}, ${sql.jsonb(c.config as never)}, ${c.secretsEncrypted},
          (SELECT coalesce(max(rank) + 1, 0) FROM environment_connections WHERE environment_id = ${environmentId}))
        RETURNING id`);
      return byId(id);
    },

    update: async (id: string, c: Omit<ConnectionFields, 'providerId'>) => {
      await db.query(sql.unsafe`
        UPDATE environment_connections SET name = ${c.name}, config = ${sql.jsonb(c.config as never)}, secrets_encrypted = ${c.secretsEncrypted},
          updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    delete: (id: string) => db.query(sql.unsafe`DELETE FROM environment_connections WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
