// Provisioning tokens of an environment. Only hashes of the values are stored; what leaves is a ProvisioningToken.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ProvisioningToken, type ProvisioningKind } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import type { StoredValue } from '../../access/api-secrets/queries.ts';

const columns = sql.fragment`
  t.id, t.environment_id AS "environmentId", t.name, t.description, t.kind, t.prefix, t.hint, t.expires_at AS "expiresAt",
  t.last_used_at AS "lastUsedAt", t.previous_expires_at AS "previousTokenExpiresAt", t.revoked_at AS "revokedAt",
  t.rate_limit_per_minute AS "rateLimitPerMinute",
  (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())) AS active,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

export interface NewProvisioningToken {
  tenantId: string;
  name: string;
  description: string | null;
  kind: ProvisioningKind;
  expiresAt: string | null;
  rateLimitPerMinute: number | null;
  value: StoredValue;
}

/** Queries of one environment's provisioning tokens: every statement is bound to `environmentId`. */
export function createProvisioningTokenQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) =>
    db.one(sql.type(ProvisioningToken)`SELECT ${columns} FROM provisioning_tokens t WHERE t.environment_id = ${environmentId} AND t.id = ${id}`);
  return {
    /** The token of that environment; `lock` holds its row until the transaction ends. */
    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(ProvisioningToken)`
        SELECT ${columns} FROM provisioning_tokens t WHERE t.id = ${id} AND t.environment_id = ${environmentId}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (page: PageRequest) =>
      selectPage(
        db,
        ProvisioningToken,
        sql.fragment`SELECT ${columns} FROM provisioning_tokens t WHERE t.environment_id = ${environmentId}`,
        sql.fragment`t.created_at, t.id`,
        page,
      ),

    insert: async (t: NewProvisioningToken) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO provisioning_tokens (environment_id, tenant_id, name, description, kind, prefix, hint, token_hash, expires_at, rate_limit_per_minute)
        VALUES (${environmentId}, ${t.tenantId}, ${t.name}, ${t.description}, ${t.kind}, ${t.value.prefix},
          ${t.value.hint}, ${sql.binary(t.value.hash)}, ${t.expiresAt}, ${t.rateLimitPerMinute})
        RETURNING id`);
      return byId(id);
    },

    /** The new value replaces the current one, which keeps working for `graceSeconds` (none at 0); an older previous value stops. */
    rotate: async (id: string, value: StoredValue, graceSeconds: number) => {
      const grace = graceSeconds > 0;
      await db.query(sql.unsafe`
        UPDATE provisioning_tokens SET
          previous_token_hash = ${grace ? sql.fragment`token_hash` : null},
          previous_expires_at = ${grace ? sql.fragment`now() + make_interval(secs => ${graceSeconds})` : null},
          token_hash = ${sql.binary(value.hash)}, prefix = ${value.prefix}, hint = ${value.hint}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    revoke: async (id: string) => {
      await db.query(sql.unsafe`UPDATE provisioning_tokens SET revoked_at = now(), updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} AND revoked_at IS NULL`);
      return byId(id);
    },

    delete: (id: string) => db.query(sql.unsafe`DELETE FROM provisioning_tokens WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
