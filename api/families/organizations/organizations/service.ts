// Organizations the caller belongs to: list, create (the creating user becomes its owner; an operator service
// account may create one without a member), update, delete
// (refused while it still owns tenants). Shared helpers of the organization services live here too.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createOrganizationInvitationQueries } from '../../../../db/organizations/invitations/queries.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createOrganizationQueries, type OrganizationChanges } from '../../../../db/organizations/organizations/queries.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import type { Organization } from '../../../../db/organizations/organizations/rows.ts';
import { ApiError, conflict, invalidField, orNotFound } from '../../../errors.ts';
import { record, type Caller, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { findReachableTenant } from '../../../access/reach.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

export interface OrganizationServiceDeps {
  pool: DatabasePool;
}

/** The organization the route addresses (the scope guard checked the caller reaches it); `lock` holds its row until commit. */
export function scopedOrganization(db: CommonQueryMethods, caller: OrganizationCaller, lock = false) {
  const queries = createOrganizationQueries(db);
  const id = caller.scope.organizationId;
  return orNotFound(lock ? queries.lockOrganizationById(id) : queries.findOrganizationById(id), 'organization', id);
}

/** Operations that make the caller a member of something need a user: a service account belongs to one organization. */
export function requireUser(caller: Caller, what: string) {
  if (caller.principal.type !== 'user') {
    throw new ApiError(
      403,
      'auth.user_required',
      `Only a user can ${what}; this token belongs to a ${caller.principal.type.replace('_', ' ')}. Use a personal access token.`,
    );
  }
  return caller.principal.id;
}

export function createOrganizationService(deps: OrganizationServiceDeps) {
  const { pool } = deps;
  const audit = <T extends EventType>(
    verb: 'create' | 'update' | 'delete',
    organization: Organization,
    before: Organization | null,
    event: EventOf<T>,
  ): CallerChange<T> => ({
    action: `organization.${verb}`,
    resource: { type: 'organization', id: organization.id },
    scope: { organizationId: organization.id },
    before,
    after: verb === 'delete' ? null : organization,
    event,
  });

  return {
    list: (caller: Caller, query: PageQuery) =>
      listPage('organizations', query, (page) => createOrganizationQueries(pool).findOrganizationsAmong(caller.principal.organizationIds, page)),

    get: (caller: OrganizationCaller) => scopedOrganization(pool, caller),

    /**
     * A user creates an organization and becomes its owner. A service account of the operator (bootstrap)
     * organization may create one too (as management keys of WorkOS or Auth0 do), with no member: it is recorded as
     * the creator and keeps reach over it (read, update, delete, its tenants). Anyone else is refused, told who can.
     */
    create: async (caller: Caller, input: { name: string; description?: string | null; billingEmail?: string | null; tenantIds: string[] }) => {
      const { principal } = caller;
      const userId = principal.type === 'user' ? principal.id : null;
      const organization = await pool.transaction(async (trx) => {
        const operators = await createServiceStateQueries(trx).findBootstrap();
        const operatorServiceAccount = principal.type === 'service_account' && operators !== null && principal.organizationIds[0] === operators.organizationId;
        if (!userId && !operatorServiceAccount) {
          throw new ApiError(
            403,
            'auth.user_required',
            'Only a user (who becomes its owner; use a personal access token) or a service account of the operator organization ' +
              '(which keeps reach over it) can create an organization; ' +
              `this token belongs to ${principal.type === 'service_account' ? 'a service account of another organization' : 'an organization key'}.`,
          );
        }
        for (const [i, tenantId] of input.tenantIds.entries()) {
          // A tenant seat gives access to the tenant, not a say over its organizations.
          if (!(await findReachableTenant(trx, caller.principal, tenantId, { viaSeats: false }))) {
            throw invalidField(`body.tenantIds.${i}`, 'is not a tenant the caller can reach', 'organization.tenant_unreachable');
          }
        }
        const queries = createOrganizationQueries(trx);
        const id = await queries.insertOrganization(input);
        const tenantIds = [...new Set(input.tenantIds)];
        for (const tenantId of tenantIds) await createOrganizationTenantQueries(trx).linkTenant(id, tenantId);
        if (userId) await queries.insertMember({ organizationId: id, userId, role: 'owner' });
        else await queries.insertCreator(id, principal.id);
        const created = (await queries.findOrganizationById(id))!;
        await record(trx, caller, audit('create', created, null, { type: 'organization.created', data: { organization: created, tenantIds } }));
        return created;
      });
      return organization;
    },

    update: (caller: OrganizationCaller, changes: OrganizationChanges) =>
      pool.transaction(async (trx) => {
        const before = await scopedOrganization(trx, caller, true);
        const organization = await createOrganizationQueries(trx).updateOrganizationById(before.id, changes);
        const previous = Object.fromEntries(Object.keys(changes).map((k) => [k, before[k as keyof Organization]]));
        await record(trx, caller, audit('update', organization, before, { type: 'organization.updated', data: { organization, previous } }));
        return organization;
      }),

    remove: async (caller: OrganizationCaller) => {
      const organizationId = caller.scope.organizationId;
      const organization = await pool.transaction(async (trx) => {
        const before = await scopedOrganization(trx, caller, true);
        const tenants = await createOrganizationTenantQueries(trx).countTenantsOfOrganization(organizationId);
        if (tenants > 0) {
          throw conflict('organization.has_tenants', `The organization still owns ${tenants} tenant(s); transfer, unlink or delete them first.`);
        }
        // Pending invitations go with the organization: their expiry processes stop.
        for (const id of await createOrganizationInvitationQueries(trx).pendingIdsOfOrganization(organizationId)) {
          await createProcessOutboxQueries(trx).enqueueSignal({ kind: 'invitation-expiry', entityId: id, topic: 'invitation', payload: { revoked: true } });
        }
        await createOrganizationQueries(trx).deleteOrganizationById(organizationId);
        await record(trx, caller, audit('delete', before, before, { type: 'organization.deleted', data: { organization: before } }));
        return before;
      });
      return organization;
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
