// Home-realm discovery's read in one environment: the connection an email domain is bound to, listed in the
// connection's `domains` setting and verified by the environment's tenant (tenant_domains). The identifier page's
// buttons come from the Provider snapshot (db/oidc/provider/snapshot.ts). Bound to `environmentId`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../../shared/rows.ts';

const BoundConnection = z.object({ id: uuid, providerId: z.string(), name: z.string().nullable(), required: z.boolean() });
export type BoundConnectionRow = z.infer<typeof BoundConnection>;

export function createHomeRealmQueries(db: CommonQueryMethods, environmentId: string, ssoProviderIds: readonly string[]) {
  const providers = sql.array([...ssoProviderIds], 'text');
  return {
    /** The first active SSO connection (by rank) bound to `domain` (lowercase), when the tenant holds it verified. */
    boundConnection: (domain: string) =>
      db.maybeOne(sql.type(BoundConnection)`
        SELECT c.id, c.provider_id AS "providerId", c.name, coalesce((c.config->>'requiredForDomains')::boolean, false) AS required
        FROM environment_connections c
          JOIN environments e ON e.id = c.environment_id
          JOIN tenant_domains d ON d.tenant_id = e.tenant_id AND d.verified AND d.domain = ${domain}
        WHERE c.environment_id = ${environmentId} AND c.active AND c.provider_id = ANY(${providers})
          AND coalesce(c.config->'domains', '[]'::jsonb) @> jsonb_build_array(${domain}::text)
        ORDER BY c.rank, c.created_at, c.id LIMIT 1`),
  };
}
