import type { DatabasePool } from 'slonik';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createTenantQueries, type TenantChanges } from '../../../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { ApiError, conflict } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { reachableTenant, reachableTenants } from '../../../access/reach.ts';

/** The tenant created on first start holds the operators' environment: it is never deleted nor taken from the operator organization. */
export const operatorTenant = () => conflict('tenant.protected', "This tenant holds the service's operators and cannot be deleted or moved.");

export function createTenantService(pool: DatabasePool) {
  const reachable = reachableTenant;

  return {
    list: (caller: Caller, page: { limit: number; offset: number }) => reachableTenants(pool, caller, page),

    get: (caller: Caller, tenantId: string) => reachable(pool, caller, tenantId),

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
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'tenant.create',
          resource: { type: 'tenant', id: tenant.id },
          scope: { organizationId, tenantId: tenant.id },
          after: tenant,
          event: { type: 'tenant.created', data: { tenant } },
        });
        return tenant;
      });
    },

    update: (caller: Caller, tenantId: string, changes: TenantChanges) =>
      pool.transaction(async (trx) => {
        await createTenantQueries(trx).lockTenantById(tenantId);
        const before = await reachable(trx, caller, tenantId);
        const tenant = await createTenantQueries(trx).updateTenantById(tenantId, changes);
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'tenant.update',
          resource: { type: 'tenant', id: tenantId },
          scope: { organizationId: tenant.organizationIds[0] ?? null, tenantId },
          before,
          after: tenant,
          event: { type: 'tenant.updated', data: { tenant, previous: pickChanged(before, changes) } },
        });
        return tenant;
      }),

    remove: (caller: Caller, tenantId: string) =>
      pool.transaction(async (trx) => {
        const before = await reachable(trx, caller, tenantId);
        if ((await createServiceStateQueries(trx).findBootstrap())?.tenantId === tenantId) throw operatorTenant();
        await createTenantQueries(trx).deleteTenantById(tenantId);
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'tenant.delete',
          resource: { type: 'tenant', id: tenantId },
          scope: { organizationId: before.organizationIds[0] ?? null, tenantId },
          before,
          event: { type: 'tenant.deleted', data: { tenant: before } },
        });
        return before;
      }),
  };
}

function pickChanged(before: Tenant, changes: TenantChanges) {
  return Object.fromEntries(Object.keys(changes).map((k) => [k, before[k as keyof Tenant]]));
}

export type TenantService = ReturnType<typeof createTenantService>;
