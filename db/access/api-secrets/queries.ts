// Environment API secrets of an environment. Only hashes of the values are stored; what leaves is an ApiSecret.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ApiSecret } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  s.id, s.environment_id AS "environmentId", s.name, s.description, s.purposes, s.prefix, s.hint, s.expires_at AS "expiresAt",
  s.last_used_at AS "lastUsedAt", s.previous_expires_at AS "previousSecretExpiresAt", s.revoked_at AS "revokedAt",
  s.rate_limit_per_minute AS "rateLimitPerMinute",
  (s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())) AS active,
  s.created_at AS "createdAt", s.updated_at AS "updatedAt"`;

/** A secret value as stored: its hash, and what listings show of it. */
export interface StoredValue {
  hash: Buffer;
  prefix: string;
  hint: string;
}

export interface NewApiSecret {
  tenantId: string;
  name: string;
  description: string | null;
  purposes: string[];
  expiresAt: string | null;
  rateLimitPerMinute: number | null;
  value: StoredValue;
}

/** Queries of one environment's API secrets: every statement is bound to `environmentId`. */
export function createApiSecretQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) => db.one(sql.type(ApiSecret)`SELECT ${columns} FROM api_secrets s WHERE s.environment_id = ${environmentId} AND s.id = ${id}`);
  return {
    /** The secret of that environment; `lock` holds its row until the transaction ends. */
    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(ApiSecret)`
        SELECT ${columns} FROM api_secrets s WHERE s.id = ${id} AND s.environment_id = ${environmentId}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (page: PageRequest) =>
      selectPage(
        db,
        ApiSecret,
        sql.fragment`SELECT ${columns} FROM api_secrets s WHERE s.environment_id = ${environmentId}`,
        sql.fragment`s.created_at, s.id`,
        page,
      ),

    insert: async (s: NewApiSecret) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO api_secrets (environment_id, tenant_id, name, description, purposes, prefix, hint, secret_hash, expires_at, rate_limit_per_minute)
        VALUES (${environmentId}, ${s.tenantId}, ${s.name}, ${s.description}, ${sql.array(s.purposes, 'text')}, ${s.value.prefix},
          ${s.value.hint}, ${sql.binary(s.value.hash)}, ${s.expiresAt}, ${s.rateLimitPerMinute})
        RETURNING id`);
      return byId(id);
    },

    update: async (id: string, c: { name?: string; description?: string | null; rateLimitPerMinute?: number | null }) => {
      const sets = [
        c.name !== undefined && sql.fragment`name = ${c.name}`,
        c.description !== undefined && sql.fragment`description = ${c.description}`,
        c.rateLimitPerMinute !== undefined && sql.fragment`rate_limit_per_minute = ${c.rateLimitPerMinute}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      await db.query(sql.unsafe`UPDATE api_secrets SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    /** The new value replaces the current one, which keeps working for `graceSeconds` (none at 0); an older previous value stops. */
    rotate: async (id: string, value: StoredValue, graceSeconds: number) => {
      const grace = graceSeconds > 0;
      await db.query(sql.unsafe`
        UPDATE api_secrets SET
          previous_secret_hash = ${grace ? sql.fragment`secret_hash` : null},
          previous_expires_at = ${grace ? sql.fragment`now() + make_interval(secs => ${graceSeconds})` : null},
          secret_hash = ${sql.binary(value.hash)}, prefix = ${value.prefix}, hint = ${value.hint}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    revoke: async (id: string) => {
      await db.query(
        sql.unsafe`UPDATE api_secrets SET revoked_at = now(), updated_at = now() WHERE environment_id = ${environmentId} AND id = ${id} AND revoked_at IS NULL`,
      );
      return byId(id);
    },

    delete: (id: string) => db.query(sql.unsafe`DELETE FROM api_secrets WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
