// Links between organizations and tenants: link, unlink (a tenant keeps at least one organization), and
// transfer (the links through which the caller reaches a tenant are replaced by a target organization).
import type { DatabaseTransactionConnection } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createOrganizationQueries } from '../../../../db/organizations/organizations/queries.ts';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { conflict, invalidField, notFound, orNotFound } from '../../../errors.ts';
import { record, type Caller, type CallerChange, type OrganizationCaller, type TenantCaller } from '../../../access/caller.ts';
import { findReachableTenant, reachesOrganization } from '../../../access/reach.ts';
import { operatorTenant } from '../../tenants/tenants/service.ts';
import { scopedOrganization, type OrganizationServiceDeps } from '../organizations/service.ts';

/**
 * Locks the tenant row (its links change under this lock only) and returns it if the caller reaches it through its
 * organizations: a tenant seat gives access to the tenant, not a say over its organizations.
 */
async function lockReachableTenant(trx: DatabaseTransactionConnection, caller: Caller, tenantId: string) {
  await createTenantQueries(trx).lockTenantById(tenantId);
  return orNotFound(findReachableTenant(trx, caller.principal, tenantId, { viaSeats: false }), 'tenant', tenantId);
}

const current = async (trx: DatabaseTransactionConnection, tenantId: string) => (await createTenantQueries(trx).lockTenantById(tenantId)) as Tenant;

const EVENT_OF = { link: 'organization.tenant.linked', unlink: 'organization.tenant.unlinked' } as const satisfies Record<string, EventType>;

export function createOrganizationTenantService(deps: OrganizationServiceDeps) {
  const { pool } = deps;
  const linkChange = (verb: 'link' | 'unlink', organizationId: string, tenant: Tenant): CallerChange => ({
    action: `organization.tenant.${verb}`,
    resource: { type: 'tenant', id: tenant.id },
    scope: { tenantId: tenant.id },
    after: { organizationIds: tenant.organizationIds },
    event: { type: EVENT_OF[verb], data: { organizationId, tenant } },
  });

  return {
    link: (caller: OrganizationCaller, tenantId: string) =>
      pool.transaction(async (trx) => {
        const organization = await scopedOrganization(trx, caller);
        const organizationId = organization.id;
        await lockReachableTenant(trx, caller, tenantId);
        if (!(await createOrganizationTenantQueries(trx).linkTenant(organizationId, tenantId))) {
          throw conflict('organization.tenant_already_linked', 'The tenant is already linked to this organization.');
        }
        await record(trx, caller, linkChange('link', organizationId, await current(trx, tenantId)));
        return organization;
      }),

    unlink: (caller: OrganizationCaller, tenantId: string) =>
      pool.transaction(async (trx) => {
        const organization = await scopedOrganization(trx, caller);
        const organizationId = organization.id;
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
        await record(trx, caller, linkChange('unlink', organizationId, await current(trx, tenantId)));
        return organization;
      }),

    transfer: (caller: TenantCaller, input: { targetOrganizationId: string; confirmationName: string }) =>
      pool.transaction(async (trx) => {
        const tenantId = caller.scope.tenant.id;
        const before = await lockReachableTenant(trx, caller, tenantId);
        const through = before.organizationIds.filter((id) => caller.principal.organizationIds.includes(id));
        if (through.length === 0) throw notFound('tenant', tenantId);
        if (!reachesOrganization(caller.principal, input.targetOrganizationId)) throw notFound('organization', input.targetOrganizationId);
        const target = await orNotFound(
          createOrganizationQueries(trx).findOrganizationById(input.targetOrganizationId),
          'organization',
          input.targetOrganizationId,
        );
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
        await record(trx, caller, {
          action: 'tenant.transfer',
          resource: { type: 'tenant', id: tenantId },
          scope: { organizationId: target.id },
          before: { organizationIds: before.organizationIds },
          after: { organizationIds: tenant.organizationIds },
          event: { type: 'tenant.transferred', data: { tenant, fromOrganizationIds: from, toOrganizationId: target.id } },
        });
        return tenant;
      }),
  };
}

export type OrganizationTenantService = ReturnType<typeof createOrganizationTenantService>;
