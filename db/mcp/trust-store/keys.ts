// Public keys of trust-store entries (migration 0019): `active` keys verify; after a rotation the previous ones are
// `retiring` until `retires_at`, then `retired` (by the trust-store-key-retirement process); `revoked` at once.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { TrustStoreKey } from './rows.ts';
import type { PublicJwk } from '../../../lib/public-jwk.ts';

const columns = sql.fragment`
  k.id, k.entry_id AS "entryId", k.kid, k.alg, k.jwk, k.status, k.retires_at AS "retiresAt", k.revoked_at AS "revokedAt",
  k.created_at AS "createdAt", k.updated_at AS "updatedAt"`;
const Retire = z.object({ outcome: z.enum(['retired', 'settled', 'pending']), retiresAt: z.number().nullable() });

/** Queries of one environment's trust-store keys: every statement is bound to `environmentId`. */
export function createTrustStoreKeyQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) =>
    db.one(sql.type(TrustStoreKey)`SELECT ${columns} FROM trust_store_keys k WHERE k.environment_id = ${environmentId} AND k.id = ${id}`);
  return {
    byId,
    find: (entryId: string, id: string) =>
      db.maybeOne(sql.type(TrustStoreKey)`
        SELECT ${columns} FROM trust_store_keys k WHERE k.environment_id = ${environmentId} AND k.id = ${id} AND k.entry_id = ${entryId}`),

    /** Every key of an entry, oldest first. */
    ofEntry: async (entryId: string) => [
      ...(await db.any(sql.type(TrustStoreKey)`
        SELECT ${columns} FROM trust_store_keys k WHERE k.environment_id = ${environmentId} AND k.entry_id = ${entryId} ORDER BY k.created_at, k.id`)),
    ],

    findPage: (entryId: string, page: PageRequest) =>
      selectPage(
        db,
        TrustStoreKey,
        sql.fragment`SELECT ${columns} FROM trust_store_keys k WHERE k.environment_id = ${environmentId} AND k.entry_id = ${entryId}`,
        sql.fragment`k.created_at, k.id`,
        page,
      ),

    insert: async (entryId: string, jwk: PublicJwk) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO trust_store_keys (entry_id, environment_id, kid, jwk, alg)
        VALUES (${entryId}, ${environmentId}, ${jwk.kid}, ${sql.jsonb(jwk as never)}, ${jwk.alg})
        RETURNING id`);
      return byId(id);
    },

    /** The entry's active keys other than `keep` become retiring until `graceSeconds` from now (retired at once at 0). */
    retireActive: async (entryId: string, keep: string, graceSeconds: number) =>
      [
        ...(await db.any(sql.type(z.object({ id: z.uuid() }))`
        UPDATE trust_store_keys SET updated_at = now(),
          ${graceSeconds > 0 ? sql.fragment`status = 'retiring', retires_at = now() + make_interval(secs => ${graceSeconds})` : sql.fragment`status = 'retired'`}
        WHERE environment_id = ${environmentId} AND entry_id = ${entryId} AND status = 'active' AND id <> ${keep}
        RETURNING id`)),
      ].map((r) => r.id),

    revoke: async (id: string) => {
      await db.query(sql.unsafe`
        UPDATE trust_store_keys SET status = 'revoked', revoked_at = now(), retires_at = NULL, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} AND status <> 'revoked'`);
      return byId(id);
    },
  };
}

// unscoped: the trust-store-key-retirement process acts on the key it was started for, by id (its input carries no environment).
export function createTrustStoreKeyProcessQueries(db: CommonQueryMethods) {
  return {
    byId: (id: string) => db.one(sql.type(TrustStoreKey)`SELECT ${columns} FROM trust_store_keys k WHERE k.id = ${id}`),

    /**
     * Retires a retiring key once its retires_at has passed (the row locked and re-read: once only); `settled` when it
     * is no longer retiring (revoked, deleted), `pending` with its retires_at (ms) when not due yet.
     */
    retireIfDue: (id: string) =>
      db.one(sql.type(Retire)`
        WITH k AS (SELECT id, status, retires_at FROM trust_store_keys WHERE id = ${id} FOR UPDATE),
        done AS (
          UPDATE trust_store_keys t SET status = 'retired', retires_at = NULL, updated_at = now()
          FROM k WHERE t.id = k.id AND k.status = 'retiring' AND k.retires_at <= now() RETURNING t.id)
        SELECT CASE WHEN EXISTS (SELECT 1 FROM done) THEN 'retired' WHEN k.status = 'retiring' THEN 'pending' ELSE 'settled' END AS outcome,
          CASE WHEN k.status = 'retiring' THEN (extract(epoch FROM k.retires_at) * 1000)::float8 END AS "retiresAt"
        FROM (SELECT 1) one LEFT JOIN k ON true`),
  };
}
