// An environment's JWT claim mappings; each change notifies `iam_oidc` (0027), so every instance rebuilds the
// environment's Provider with them.
import { sql, type CommonQueryMethods } from 'slonik';
import { JwtClaimMapping, type ClaimMappingFields } from './rows.ts';

const columns = sql.fragment`
  id, environment_id AS "environmentId", claim_name AS "claimName", source, metadata_key AS "metadataKey",
  static_value AS "staticValue", enabled, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Queries of one environment's claim mappings: every statement is bound to `environmentId`. */
export function createClaimMappingQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    list: async () => [
      ...(await db.any(sql.type(JwtClaimMapping)`
        SELECT ${columns} FROM jwt_claim_mappings WHERE environment_id = ${environmentId} ORDER BY created_at, id`)),
    ],

    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(JwtClaimMapping)`
        SELECT ${columns} FROM jwt_claim_mappings WHERE environment_id = ${environmentId} AND id = ${id}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    create: (f: ClaimMappingFields) =>
      db.one(sql.type(JwtClaimMapping)`
        INSERT INTO jwt_claim_mappings (environment_id, claim_name, source, metadata_key, static_value, enabled)
        VALUES (${environmentId}, ${f.claimName}, ${f.source}, ${f.metadataKey}, ${f.staticValue}, ${f.enabled})
        RETURNING ${columns}`),

    update: (id: string, f: ClaimMappingFields) =>
      db.one(sql.type(JwtClaimMapping)`
        UPDATE jwt_claim_mappings SET claim_name = ${f.claimName}, source = ${f.source}, metadata_key = ${f.metadataKey},
          static_value = ${f.staticValue}, enabled = ${f.enabled}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}
        RETURNING ${columns}`),

    remove: (id: string) => db.query(sql.unsafe`DELETE FROM jwt_claim_mappings WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
