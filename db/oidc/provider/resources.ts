// Resource indicators (RFC 8707): an environment's MCP servers in its trust store.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export function createProviderResourceQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Whether `subject` is an MCP server of the trust store that is neither revoked nor suspended. */
    isMcpServer: async (subject: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ ok: z.boolean() }))`
        SELECT true AS ok FROM trust_store_entries
        WHERE environment_id = ${environmentId} AND kind = 'mcp_server' AND subject = ${subject} AND status NOT IN ('revoked', 'suspended')`)) ?? false,
  };
}
