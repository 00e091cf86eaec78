// Proof-of-possession nonces (migration 0021): stored as SHA-256 hashes, good once and until they expire.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp } from '../../shared/rows.ts';

const Consumed = z.object({ outcome: z.enum(['ok', 'unknown', 'used', 'expired']) });

export function createTrustStoreChallengeQueries(db: CommonQueryMethods) {
  return {
    insert: (entryId: string, nonceHash: Buffer, ttlSeconds: number) =>
      db.oneFirst(sql.type(z.object({ expiresAt: isoTimestamp }))`
        INSERT INTO trust_store_challenges (entry_id, nonce_hash, expires_at)
        VALUES (${entryId}, ${sql.binary(nonceHash)}, now() + make_interval(secs => ${ttlSeconds}))
        RETURNING expires_at AS "expiresAt"`),

    /** Uses the entry's nonce up (once only, under a row lock), or tells why it cannot be: unknown, used or expired. */
    consume: (entryId: string, nonceHash: Buffer) =>
      db.oneFirst(sql.type(Consumed)`
        WITH c AS (SELECT id, used_at, expires_at FROM trust_store_challenges WHERE nonce_hash = ${sql.binary(nonceHash)} AND entry_id = ${entryId} FOR UPDATE),
        used AS (UPDATE trust_store_challenges t SET used_at = now() FROM c WHERE t.id = c.id AND c.used_at IS NULL AND c.expires_at > now() RETURNING t.id)
        SELECT CASE WHEN EXISTS (SELECT 1 FROM used) THEN 'ok' WHEN c.id IS NULL THEN 'unknown' WHEN c.used_at IS NOT NULL THEN 'used' ELSE 'expired' END AS outcome
        FROM (SELECT 1) one LEFT JOIN c ON true`),

    /** Challenges expired for a day are of no use to anyone. */
    purgeExpired: () => db.query(sql.unsafe`DELETE FROM trust_store_challenges WHERE expires_at < now() - interval '1 day'`),
  };
}
