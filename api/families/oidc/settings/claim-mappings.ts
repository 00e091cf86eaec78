// An environment's JWT claim mappings: the extra claims of its ID and access tokens. A save with `id` updates that
// mapping, without it creates one; a claimName already mapped in the environment is a 409 (UNIQUE_CONSTRAINTS).
import type { DatabasePool } from 'slonik';
import { createClaimMappingQueries } from '../../../../db/oidc/claim-mappings/queries.ts';
import type { ClaimMappingFields, JwtClaimMapping } from '../../../../db/oidc/claim-mappings/rows.ts';
import { orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { SaveClaimMappingBody } from './schemas.ts';

type Db = Parameters<typeof createClaimMappingQueries>[0];

const fieldsOf = (body: SaveClaimMappingBody, before: JwtClaimMapping | null): ClaimMappingFields => ({
  claimName: body.claimName,
  source: body.source,
  metadataKey: body.metadataKey ?? null,
  staticValue: body.staticValue ?? null,
  enabled: body.enabled ?? before?.enabled ?? true,
});

export function createClaimMappingService(pool: DatabasePool) {
  const mappings = (db: Db, caller: EnvironmentCaller) => createClaimMappingQueries(db, caller.scope.environmentId);
  return {
    list: async (caller: EnvironmentCaller) => ({ mappings: await mappings(pool, caller).list() }),

    save: (caller: EnvironmentCaller, body: SaveClaimMappingBody) =>
      pool.transaction(async (trx) => {
        const queries = mappings(trx, caller);
        const before = body.id ? await orNotFound(queries.find(body.id, { lock: true }), 'jwt_claim_mapping', body.id) : null;
        const mapping = before ? await queries.update(before.id, fieldsOf(body, before)) : await queries.create(fieldsOf(body, null));
        await record(trx, caller, {
          action: before ? 'jwt_claim_mapping.update' : 'jwt_claim_mapping.create',
          resource: { type: 'jwt_claim_mapping', id: mapping.id },
          before,
          after: mapping,
          event: { type: 'jwt_claim_mapping.saved', data: { mapping, created: !before } },
        });
        return { created: !before, mapping };
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const queries = mappings(trx, caller);
        const mapping = await orNotFound(queries.find(id, { lock: true }), 'jwt_claim_mapping', id);
        await queries.remove(id);
        await record(trx, caller, {
          action: 'jwt_claim_mapping.delete',
          resource: { type: 'jwt_claim_mapping', id },
          before: mapping,
          after: null,
          event: { type: 'jwt_claim_mapping.deleted', data: { mapping } },
        });
        return { success: true as const };
      }),
  };
}

export type ClaimMappingService = ReturnType<typeof createClaimMappingService>;
