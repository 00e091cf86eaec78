// What the runtime resolve route serves from memory: every entry of an environment with its active and retiring
// keys, in one statement (the cache in api/families/mcp/trust-store/resolve-cache.ts loads it per environment).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ENTRY_KINDS, ENTRY_STATUSES, TrustStoreJwk } from './rows.ts';

export const ResolvableEntry = z.object({
  id: z.uuid(),
  subject: z.string(),
  kind: z.enum(ENTRY_KINDS),
  status: z.enum(ENTRY_STATUSES),
  allowedTools: z.array(z.string()).nullable(),
  toolManifestHash: z.string().nullable(),
  manifestPinnedAt: z.string().nullable(),
  updatedAt: z.string(),
  keys: z.array(z.object({ id: z.uuid(), status: z.string(), jwk: TrustStoreJwk, retiresAt: z.number().nullable(), updatedAt: z.string() })),
});
export type ResolvableEntry = z.infer<typeof ResolvableEntry>;

export function createTrustStoreResolveQueries(db: CommonQueryMethods) {
  return {
    /** Every entry of the environment; keys: active and retiring ones (the caller drops those past retiresAt). */
    loadEnvironment: async (environmentId: string) => [
      ...(await db.any(sql.type(ResolvableEntry)`
        SELECT e.id, e.subject, e.kind, e.status, e.allowed_tools AS "allowedTools", e.tool_manifest_hash AS "toolManifestHash",
          e.manifest_pinned_at AS "manifestPinnedAt", e.updated_at AS "updatedAt",
          coalesce((
            SELECT jsonb_agg(jsonb_build_object('id', k.id, 'status', k.status, 'jwk', k.jwk, 'updatedAt', k.updated_at,
                'retiresAt', (extract(epoch FROM k.retires_at) * 1000)::float8) ORDER BY k.created_at, k.id)
            FROM trust_store_keys k WHERE k.entry_id = e.id AND k.status IN ('active', 'retiring')), '[]') AS keys
        FROM trust_store_entries e WHERE e.environment_id = ${environmentId}`)),
    ],
  };
}
