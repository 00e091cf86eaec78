import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Tenant } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  t.id, t.name, t.description, t.company, t.active, t.created_at AS "createdAt", t.updated_at AS "updatedAt",
  ARRAY(SELECT ot.organization_id FROM organization_tenants ot WHERE ot.tenant_id = t.id ORDER BY ot.created_at, ot.organization_id) AS "organizationIds"`;

/** Narrows reach: `tenantIds` limits the tenants of the organizations (null = all); `seatTenantIds` adds tenants outside them. */
export interface TenantAccess {
  tenantIds?: readonly string[] | null;
  seatTenantIds?: readonly string[];
}

const reachable = (organizationIds: readonly string[], access: TenantAccess = {}) => {
  const viaOrganization = sql.fragment`EXISTS (
  SELECT 1 FROM organization_tenants r WHERE r.tenant_id = t.id AND r.organization_id = ANY(${sql.array(organizationIds, 'uuid')}))`;
  const limited = access.tenantIds ? sql.fragment`(${viaOrganization} AND t.id = ANY(${sql.array(access.tenantIds, 'uuid')}))` : viaOrganization;
  return access.seatTenantIds?.length ? sql.fragment`(${limited} OR t.id = ANY(${sql.array(access.seatTenantIds, 'uuid')}))` : limited;
};

export interface TenantChanges {
  name?: string;
  description?: string | null;
  company?: string | null;
}

export function createTenantQueries(db: CommonQueryMethods) {
  return {
    findReachableTenantById: (id: string, organizationIds: readonly string[], access?: TenantAccess) =>
      db.maybeOne(sql.type(Tenant)`SELECT ${columns} FROM tenants t WHERE t.id = ${id} AND ${reachable(organizationIds, access)}`),

    findReachableTenants: (organizationIds: readonly string[], page: PageRequest, access?: TenantAccess) =>
      selectPage(
        db,
        Tenant,
        sql.fragment`SELECT ${columns} FROM tenants t WHERE ${reachable(organizationIds, access)}`,
        sql.fragment`t.created_at, t.id`,
        page,
      ),

    insertTenant: async (tenant: { name: string; description: string | null; company: string | null }, organizationId: string) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO tenants (name, description, company) VALUES (${tenant.name}, ${tenant.description}, ${tenant.company}) RETURNING id`);
      await db.query(sql.unsafe`INSERT INTO organization_tenants (organization_id, tenant_id) VALUES (${organizationId}, ${id})`);
      return db.one(sql.type(Tenant)`SELECT ${columns} FROM tenants t WHERE t.id = ${id}`);
    },

    updateTenantById: (id: string, changes: TenantChanges) => {
      const sets = Object.entries(changes)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => sql.fragment`${sql.identifier([k])} = ${v ?? null}`);
      return db.one(sql.type(Tenant)`
        WITH u AS (UPDATE tenants SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)} WHERE id = ${id} RETURNING *)
        SELECT ${columns} FROM u t`);
    },

    deleteTenantById: (id: string) => db.query(sql.unsafe`DELETE FROM tenants WHERE id = ${id}`),

    /** The tenant, whoever asks: for callers an environment credential already placed in it. */
    findTenantById: (id: string) => db.maybeOne(sql.type(Tenant)`SELECT ${columns} FROM tenants t WHERE t.id = ${id}`),

    lockTenantById: (id: string) => db.maybeOne(sql.type(Tenant)`SELECT ${columns} FROM tenants t WHERE t.id = ${id} FOR UPDATE`),
  };
}
