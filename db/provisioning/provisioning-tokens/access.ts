// What authenticating a provisioning token (adscim_…, adhris_…) reads: the token by the hash of its current value,
// or of its previous value while a rotation's grace period runs. The same shape as an environment API secret's,
// its kind standing as its one purpose.
import { sql, type CommonQueryMethods } from 'slonik';
import { SecretAccess } from '../../access/api-secrets/access.ts';

export function createProvisioningTokenAccessQueries(db: CommonQueryMethods) {
  return {
    findTokenAccessByHash: (hash: Buffer) =>
      db.maybeOne(sql.type(SecretAccess)`
        SELECT id, environment_id AS "environmentId", tenant_id AS "tenantId", ARRAY[kind] AS purposes,
          token_hash <> ${sql.binary(hash)} AS previous,
          previous_expires_at AS "previousExpiresAt", expires_at AS "expiresAt", revoked_at AS "revokedAt",
          rate_limit_per_minute AS "rateLimitPerMinute"
        FROM provisioning_tokens WHERE token_hash = ${sql.binary(hash)} OR previous_token_hash = ${sql.binary(hash)}`),

    // unscoped: authentication marks the token it has just found by the hash of its value; the id came from that row.
    touchToken: (id: string) => db.query(sql.unsafe`UPDATE provisioning_tokens SET last_used_at = now() WHERE id = ${id}`),
  };
}
