// The environment's OpenID signing key ring (oidc_signing_keys): at most one active key per alg (partial unique
// index), retiring keys published until `retires_at`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp } from '../../shared/rows.ts';

export const OidcSigningKeyRow = z.object({
  kid: z.string(),
  alg: z.enum(['ES256', 'RS256']),
  publicJwk: z.record(z.string(), z.unknown()),
  privateKeyEncrypted: z.string(),
  status: z.enum(['active', 'retiring', 'retired']),
  retiresAt: nullableTimestamp,
  createdAt: isoTimestamp,
});
export type OidcSigningKeyRow = z.infer<typeof OidcSigningKeyRow>;

const columns = sql.fragment`kid, alg, public_jwk AS "publicJwk", private_key_encrypted AS "privateKeyEncrypted", status,
  retires_at AS "retiresAt", created_at AS "createdAt"`;

const RetiredKey = z.object({ id: z.uuid(), kid: z.string(), alg: z.string(), retiresAt: z.string() });

export interface NewOidcSigningKey {
  kid: string;
  alg: 'ES256' | 'RS256';
  publicJwk: Record<string, unknown>;
  privateKeyEncrypted: string;
}

export function createOidcSigningKeyQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Active keys and retiring keys whose tokens may still be alive, newest first. */
    findPublished: () =>
      db.any(sql.type(OidcSigningKeyRow)`
        SELECT ${columns} FROM oidc_signing_keys
        WHERE environment_id = ${environmentId} AND (status = 'active' OR (status = 'retiring' AND retires_at > now()))
        ORDER BY (status = 'active') DESC, created_at DESC`),

    /** Adds an active key unless another instance already did (the partial unique index decides). */
    insertActiveIfNone: (key: NewOidcSigningKey) =>
      db.query(sql.unsafe`
        INSERT INTO oidc_signing_keys (environment_id, kid, alg, public_jwk, private_key_encrypted)
        VALUES (${environmentId}, ${key.kid}, ${key.alg}, ${sql.jsonb(key.publicJwk as never)}, ${key.privateKeyEncrypted})
        ON CONFLICT (environment_id, alg) WHERE status = 'active' DO NOTHING`),

    /** The active key of `alg` becomes retiring until `retiresInSeconds` from now. */
    retireActive: (alg: string, retiresInSeconds: number) =>
      db.query(sql.unsafe`
        UPDATE oidc_signing_keys SET status = 'retiring', retires_at = now() + make_interval(secs => ${retiresInSeconds}), updated_at = now()
        WHERE environment_id = ${environmentId} AND alg = ${alg} AND status = 'active'`),

    /** Retiring keys past their date leave the ring; returns them (each is recorded: ./retirement.ts). */
    retireExpired: async () => [
      ...(await db.any(sql.type(RetiredKey)`
        WITH due AS (
          SELECT id, retires_at FROM oidc_signing_keys
          WHERE environment_id = ${environmentId} AND status = 'retiring' AND retires_at <= now() FOR UPDATE)
        UPDATE oidc_signing_keys k SET status = 'retired', retires_at = NULL, updated_at = now()
        FROM due WHERE k.environment_id = ${environmentId} AND k.id = due.id
        RETURNING k.id, k.kid, k.alg, to_char(due.retires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "retiresAt"`)),
    ],
  };
}
