// What authenticating an environment API secret (adenv_…) reads: the secret by the hash of its current value, or
// of its previous value while a rotation's grace period runs.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const SecretAccess = z.object({
  id: z.uuid(),
  environmentId: z.uuid(),
  tenantId: z.uuid(),
  purposes: z.array(z.string()),
  /** Whether the presented value is the previous one (valid until previousExpiresAt). */
  previous: z.boolean(),
  previousExpiresAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  rateLimitPerMinute: z.number().int().nullable(),
});
export type SecretAccess = z.infer<typeof SecretAccess>;

export function createApiSecretAccessQueries(db: CommonQueryMethods) {
  return {
    findSecretAccessByHash: (hash: Buffer) =>
      db.maybeOne(sql.type(SecretAccess)`
        SELECT id, environment_id AS "environmentId", tenant_id AS "tenantId", purposes,
          secret_hash <> ${sql.binary(hash)} AS previous,
          previous_expires_at AS "previousExpiresAt", expires_at AS "expiresAt", revoked_at AS "revokedAt",
          rate_limit_per_minute AS "rateLimitPerMinute"
        FROM api_secrets WHERE secret_hash = ${sql.binary(hash)} OR previous_secret_hash = ${sql.binary(hash)}`),

    // unscoped: authentication touches the secret its hash just selected, by id.
    touchSecret: (id: string) => db.query(sql.unsafe`UPDATE api_secrets SET last_used_at = now() WHERE id = ${id}`),
  };
}
