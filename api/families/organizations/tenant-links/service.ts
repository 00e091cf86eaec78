// Links between organizations and tenants: link, unlink (a tenant keeps at least one organization), and
// transfer (the links through which the caller reaches a tenant are replaced by a target organization).
import type { DatabaseTransactionConnection } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { conflict, invalidField, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { operatorTenant } from '../../tenants/tenants/service.ts';
import { reachableOrganizationRow, tenantOfCallerOrganizations, type OrganizationServiceDeps } from '../organizations/service.ts';

/** Locks the tenant row (its links change under this lock only) and returns it if the caller reaches it through its organizations. */
async function lockReachableTenant(trx: DatabaseTransactionConnection, caller: Caller, tenantId: string) {
  await createTenantQueries(trx).lockTenantById(tenantId);
  const tenant = await tenantOfCallerOrganizations(trx, caller, tenantId);
  if (!tenant) throw notFound('tenant', tenantId);
  return tenant;
}

const current = async (trx: DatabaseTransactionConnection, tenantId: string) => (await createTenantQueries(trx).lockTenantById(tenantId)) as Tenant;

const EVENT_OF = { link: 'organization.tenant.linked', unlink: 'organization.tenant.unlinked' } as const satisfies Record<string, EventType>;

export function createOrganizationTenantService(deps: OrganizationServiceDeps) {
  const { pool } = deps;
  const linkChange = (caller: Caller, verb: 'link' | 'unlink', organizationId: string, tenant: Tenant) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `organization.tenant.${verb}`,
    resource: { type: 'tenant', id: tenant.id },
    scope: { organizationId, tenantId: tenant.id },
    after: { organizationIds: tenant.organizationIds },
    event: { type: EVENT_OF[verb], data: { organizationId, tenant } },
  });

  return {
    link: (caller: Caller, organizationId: string, tenantId: string) =>
      pool.transaction(async (trx) => {
        const organization = await reachableOrganizationRow(trx, caller, organizationId);
        await lockReachableTenant(trx, caller, tenantId);
        if (!(await createOrganizationTenantQueries(trx).linkTenant(organizationId, tenantId))) {
          throw conflict('organization.tenant_already_linked', 'The tenant is already linked to this organization.');
        }
        await recordChange(trx, linkChange(caller, 'link', organizationId, await current(trx, tenantId)));
        return organization;
      }),

    unlink: (caller: Caller, organizationId: string, tenantId: string) =>
      pool.transaction(async (trx) => {
        const organization = await reachableOrganizationRow(trx, caller, organizationId);
        const tenant = await createTenantQueries(trx).lockTenantById(tenantId);
        if (!tenant || !tenant.organizationIds.includes(organizationId)) throw notFound('tenant', tenantId);
        const operators = await createServiceStateQueries(trx).findBootstrap();
        if (operators?.tenantId === tenantId && operators.organizationId === organizationId) throw operatorTenant();
        if (tenant.organizationIds.length === 1) {
          throw conflict(
            'organization.last_organization_of_tenant',
            'This is the only organization of the tenant; transfer the tenant or link another organization first.',
          );
        }
        await createOrganizationTenantQueries(trx).unlinkTenant(organizationId, tenantId);
        await recordChange(trx, linkChange(caller, 'unlink', organizationId, await current(trx, tenantId)));
        return organization;
      }),

    transfer: (caller: Caller, tenantId: string, input: { targetOrganizationId: string; confirmationName: string }) =>
      pool.transaction(async (trx) => {
        const before = await lockReachableTenant(trx, caller, tenantId);
        const through = before.organizationIds.filter((id) => caller.principal.organizationIds.includes(id));
        if (through.length === 0) throw notFound('tenant', tenantId);
        const target = await reachableOrganizationRow(trx, caller, input.targetOrganizationId);
        if (input.confirmationName !== before.name) {
          throw invalidField('body.confirmationName', 'must be the name of the tenant, exactly', 'tenant.confirmation_mismatch');
        }
        const from = through.filter((id) => id !== target.id);
        if (from.length === 0) throw conflict('tenant.already_in_organization', 'The tenant already belongs to the target organization only (of yours).');
        const operators = await createServiceStateQueries(trx).findBootstrap();
        if (operators?.tenantId === tenantId && from.includes(operators.organizationId)) throw operatorTenant();
        const links = createOrganizationTenantQueries(trx);
        for (const id of from) await links.unlinkTenant(id, tenantId);
        await links.linkTenant(target.id, tenantId);
        const tenant = await current(trx, tenantId);
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'tenant.transfer',
          resource: { type: 'tenant', id: tenantId },
          scope: { organizationId: target.id, tenantId },
          before: { organizationIds: before.organizationIds },
          after: { organizationIds: tenant.organizationIds },
          event: { type: 'tenant.transferred', data: { tenant, fromOrganizationIds: from, toOrganizationId: target.id } },
        });
        return tenant;
      }),
  };
}

export type OrganizationTenantService = ReturnType<typeof createOrganizationTenantService>;
