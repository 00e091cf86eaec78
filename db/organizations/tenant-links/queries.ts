// Links between organizations and tenants (many-to-many; a tenant always keeps at least one).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Count = z.object({ n: z.number() });
const Ids = z.object({ ids: z.array(z.uuid()) });

export function createOrganizationTenantQueries(db: CommonQueryMethods) {
  return {
    // unscoped: counts the organization's links over all its tenants; the organization is the scope of this question.
    countTenantsOfOrganization: (organizationId: string) =>
      db.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM organization_tenants WHERE organization_id = ${organizationId}`),

    organizationIdsOfTenant: (tenantId: string) =>
      db.oneFirst(sql.type(Ids)`
        SELECT ARRAY(SELECT organization_id FROM organization_tenants WHERE tenant_id = ${tenantId} ORDER BY created_at, organization_id) AS ids`),

    /** True when the link is new. */
    linkTenant: async (organizationId: string, tenantId: string) =>
      (
        await db.query(sql.unsafe`
        INSERT INTO organization_tenants (organization_id, tenant_id) VALUES (${organizationId}, ${tenantId}) ON CONFLICT DO NOTHING`)
      ).rowCount === 1,

    /** True when a link was removed. */
    unlinkTenant: async (organizationId: string, tenantId: string) =>
      (await db.query(sql.unsafe`DELETE FROM organization_tenants WHERE organization_id = ${organizationId} AND tenant_id = ${tenantId}`)).rowCount === 1,
  };
}
