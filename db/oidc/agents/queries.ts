// Trust-store entries as the environment's OpenID provider sees them: MCP servers (protected resources, RFC 9728,
// and the audiences of resource indicators, RFC 8707) and agents (clients authenticating with private_key_jwt,
// RFC 7523, by the public keys registered for them).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { TrustStoreJwk } from '../../mcp/trust-store/rows.ts';

export const ProtectedResource = z.object({
  id: z.uuid(),
  subject: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'verified']),
  metadata: z.record(z.string(), z.unknown()),
});
export type ProtectedResource = z.infer<typeof ProtectedResource>;

export const AgentClient = z.object({
  id: z.uuid(),
  subject: z.string(),
  name: z.string(),
  keys: z.array(TrustStoreJwk),
});
export type AgentClient = z.infer<typeof AgentClient>;

const resourceColumns = sql.fragment`e.id, e.subject, e.name, e.status, e.metadata`;
// A revoked or suspended MCP server is no protected resource of ours; a pending one is (it is being verified).
const servable = sql.fragment`e.kind = 'mcp_server' AND e.status IN ('pending', 'verified')`;

/** Queries of one environment's trust store for the provider: every statement is bound to `environmentId`. */
export function createOidcTrustStoreQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The MCP server entry `entryId`, unless revoked or suspended. */
    resourceById: (entryId: string) =>
      db.maybeOne(sql.type(ProtectedResource)`
        SELECT ${resourceColumns} FROM trust_store_entries e WHERE e.environment_id = ${environmentId} AND e.id = ${entryId} AND ${servable}`),

    /** The verified agent whose subject is `clientId`, with its public keys that verify now (active, retiring until retires_at). */
    verifiedAgent: (clientId: string) =>
      db.maybeOne(sql.type(AgentClient)`
        SELECT e.id, e.subject, e.name,
          coalesce((SELECT jsonb_agg(k.jwk ORDER BY k.created_at, k.id) FROM trust_store_keys k
            WHERE k.environment_id = ${environmentId} AND k.entry_id = e.id
              AND (k.status = 'active' OR (k.status = 'retiring' AND k.retires_at > now()))), '[]') AS keys
        FROM trust_store_entries e
        WHERE e.environment_id = ${environmentId} AND e.subject = ${clientId} AND e.kind = 'agent' AND e.status = 'verified'`),
  };
}
