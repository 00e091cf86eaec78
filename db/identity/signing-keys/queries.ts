import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const SigningKeyRow = z.object({
  kid: z.string(),
  publicJwk: z.record(z.string(), z.unknown()),
  privateKeyEncrypted: z.string(),
  status: z.enum(['active', 'retired']),
  createdAt: z.string(),
  retiredAt: z.string().nullable(),
});
export type SigningKeyRow = z.infer<typeof SigningKeyRow>;

const columns = sql.fragment`kid, public_jwk AS "publicJwk", private_key_encrypted AS "privateKeyEncrypted", status,
  created_at AS "createdAt", retired_at AS "retiredAt"`;

export function createSigningKeyQueries(db: CommonQueryMethods) {
  return {
    /** Active keys and keys retired less than `graceSeconds` ago (tokens they signed may still be valid). */
    findPublishedKeys: (graceSeconds: number) =>
      db.any(sql.type(SigningKeyRow)`
        SELECT ${columns} FROM signing_keys
        WHERE status = 'active' OR retired_at > now() - make_interval(secs => ${graceSeconds})
        ORDER BY created_at DESC`),

    insertKey: (key: { kid: string; publicJwk: Record<string, unknown>; privateKeyEncrypted: string }) =>
      db.query(sql.unsafe`
        INSERT INTO signing_keys (kid, public_jwk, private_key_encrypted)
        VALUES (${key.kid}, ${sql.jsonb(key.publicJwk as never)}, ${key.privateKeyEncrypted})`),

    retireKeysExcept: (kid: string) =>
      db.query(sql.unsafe`UPDATE signing_keys SET status = 'retired', retired_at = now() WHERE status = 'active' AND kid <> ${kid}`),

    lockKeys: () => db.query(sql.unsafe`LOCK TABLE signing_keys IN EXCLUSIVE MODE`),
  };
}
