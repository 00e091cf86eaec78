import type { DatabasePool } from 'slonik';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createTenantQueries, type TenantChanges } from '../../../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { ApiError, conflict, orNotFound } from '../../../errors.ts';
import { record, type Caller, type TenantCaller } from '../../../access/caller.ts';
import { reachableTenants, visibleTenant } from '../../../access/reach.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

/** The tenant created on first start holds the operators' environment: it is never deleted nor taken from the operator organization. */
export const operatorTenant = () => conflict('tenant.protected', "This tenant holds the service's operators and cannot be deleted or moved.");

export function createTenantService(pool: DatabasePool) {
  /** The tenant, locked: its row changes under this lock only. */
  const lock = (db: Parameters<typeof createTenantQueries>[0], caller: TenantCaller) =>
    orNotFound(createTenantQueries(db).lockTenantById(caller.scope.tenant.id), 'tenant', caller.scope.tenant.id);

  return {
    list: (caller: Caller, query: PageQuery) => listPage('tenants', query, (page) => reachableTenants(pool, caller.principal, page)),

    get: (caller: TenantCaller) => caller.scope.tenant,

    create: (caller: Caller, input: { name: string; description?: string | null; company?: string | null; organizationId?: string }) => {
      if (caller.principal.tenantIds !== null) {
        // A key limited to listed tenants could not reach what it creates: creating tenants is beyond its limit.
        throw new ApiError(403, 'tenant.create_beyond_limit', 'This credential is limited to listed tenants and cannot create tenants.');
      }
      const organizationId = input.organizationId ?? caller.principal.organizationIds[0];
      if (!organizationId || !caller.principal.organizationIds.includes(organizationId)) {
        throw new ApiError(400, 'tenant.organization_unreachable', 'organizationId must name an organization the caller belongs to.', {
          details: [{ path: 'body.organizationId', message: 'is not an organization of the caller' }],
        });
      }
      return pool.transaction(async (trx) => {
        const tenant = await createTenantQueries(trx).insertTenant(
          { name: input.name, description: input.description ?? null, company: input.company ?? null },
          organizationId,
        );
        await record(trx, caller, {
          action: 'tenant.create',
          resource: { type: 'tenant', id: tenant.id },
          scope: { organizationId, tenantId: tenant.id },
          after: tenant,
          event: { type: 'tenant.created', data: { tenant } },
        });
        return tenant;
      });
    },

    update: (caller: TenantCaller, changes: TenantChanges) =>
      pool.transaction(async (trx) => {
        const before = await lock(trx, caller);
        const tenant = await createTenantQueries(trx).updateTenantById(before.id, changes);
        await record(trx, caller, {
          action: 'tenant.update',
          resource: { type: 'tenant', id: tenant.id },
          before,
          after: tenant,
          event: { type: 'tenant.updated', data: { tenant, previous: pickChanged(before, changes) } },
        });
        // A caller reaching the tenant only through a seat sees no organizations, as GET shows it.
        return visibleTenant(caller.principal, tenant);
      }),

    remove: (caller: TenantCaller) =>
      pool.transaction(async (trx) => {
        const before = await lock(trx, caller);
        if ((await createServiceStateQueries(trx).findBootstrap())?.tenantId === before.id) throw operatorTenant();
        await createTenantQueries(trx).deleteTenantById(before.id);
        await record(trx, caller, {
          action: 'tenant.delete',
          resource: { type: 'tenant', id: before.id },
          before: caller.scope.tenant,
          event: { type: 'tenant.deleted', data: { tenant: caller.scope.tenant } },
        });
        return caller.scope.tenant;
      }),
  };
}

function pickChanged(before: Tenant, changes: TenantChanges) {
  return Object.fromEntries(Object.keys(changes).map((k) => [k, before[k as keyof Tenant]]));
}

export type TenantService = ReturnType<typeof createTenantService>;
