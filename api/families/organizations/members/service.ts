// Members of an organization: list, activate/deactivate, remove. A change takes effect on the member's next
// request (their cached principals are evicted), and an organization always keeps an active owner.
import type { DatabaseTransactionConnection } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { notifyCredentialChange } from '../../../../db/shared/notifications.ts';
import { createOrganizationMemberQueries } from '../../../../db/organizations/members/queries.ts';
import type { Organization, OrganizationMember } from '../../../../db/organizations/organizations/rows.ts';
import { conflict, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { reachableOrganizationRow, type OrganizationServiceDeps } from '../organizations/service.ts';

export function createOrganizationMemberService(deps: OrganizationServiceDeps) {
  const { pool } = deps;

  /** Locks the organization (member changes of one organization are serialised) and finds the member. */
  const find = async (trx: DatabaseTransactionConnection, caller: Caller, organizationId: string, memberId: string) => {
    const organization = await reachableOrganizationRow(trx, caller, organizationId, true);
    const member = await createOrganizationMemberQueries(trx).findMember(organizationId, memberId);
    if (!member) throw notFound('organization_member', memberId);
    return { organization, member };
  };
  const keepAnOwner = async (trx: DatabaseTransactionConnection, member: OrganizationMember) => {
    if (member.role !== 'owner' || !member.active) return;
    if ((await createOrganizationMemberQueries(trx).countOtherActiveOwners(member.organizationId, member.id)) === 0) {
      throw conflict('organization_member.last_owner', 'This is the last active owner of the organization; make another member owner first.');
    }
  };
  const change = <T extends EventType>(
    caller: Caller,
    verb: 'update' | 'remove',
    organization: Organization,
    member: OrganizationMember,
    before: OrganizationMember,
    event: EventOf<T>,
  ) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `organization.member.${verb}`,
    resource: { type: 'organization_member', id: member.id },
    scope: { organizationId: organization.id },
    before,
    after: verb === 'remove' ? null : member,
    event,
  });

  return {
    list: async (caller: Caller, organizationId: string, page: { limit: number; offset: number }) => {
      const organization = await reachableOrganizationRow(pool, caller, organizationId);
      return { organization, ...(await createOrganizationMemberQueries(pool).findMembers(organizationId, page)) };
    },

    setActive: async (caller: Caller, organizationId: string, memberId: string, active: boolean) => {
      const result = await pool.transaction(async (trx) => {
        const { organization, member: before } = await find(trx, caller, organizationId, memberId);
        if (active && !before.joinedAt) {
          throw conflict('organization_member.not_joined', 'This member has not accepted their invitation yet; it becomes active when they do.');
        }
        if (!active) await keepAnOwner(trx, before);
        const queries = createOrganizationMemberQueries(trx);
        await queries.setMemberActive(memberId, active);
        const member = (await queries.findMember(organizationId, memberId))!;
        await notifyCredentialChange(trx, member.userId);
        await recordChange(
          trx,
          change(caller, 'update', organization, member, before, {
            type: 'organization.member.updated',
            data: { member, previous: { active: before.active } },
          }),
        );
        return { organization, member };
      });
      deps.evict?.(result.member.userId);
      return result;
    },

    remove: async (caller: Caller, organizationId: string, memberId: string) => {
      const result = await pool.transaction(async (trx) => {
        const { organization, member } = await find(trx, caller, organizationId, memberId);
        await keepAnOwner(trx, member);
        await createOrganizationMemberQueries(trx).deleteMember(memberId);
        await notifyCredentialChange(trx, member.userId);
        await recordChange(trx, change(caller, 'remove', organization, member, member, { type: 'organization.member.removed', data: { member } }));
        return { organization, member };
      });
      deps.evict?.(result.member.userId);
      return result;
    },
  };
}

export type OrganizationMemberService = ReturnType<typeof createOrganizationMemberService>;
