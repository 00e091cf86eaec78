// Members of an organization: list, activate/deactivate, remove. A change takes effect on the member's next
// request (their cached principals are evicted), and an organization always keeps an active owner.
import type { DatabaseTransactionConnection } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { createOrganizationMemberQueries } from '../../../../db/organizations/members/queries.ts';
import type { OrganizationMember } from '../../../../db/organizations/organizations/rows.ts';
import { conflict, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { scopedOrganization, type OrganizationServiceDeps } from '../organizations/service.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

export function createOrganizationMemberService(deps: OrganizationServiceDeps) {
  const { pool } = deps;

  /** Locks the organization (member changes of one organization are serialised) and finds the member. */
  const find = async (trx: DatabaseTransactionConnection, caller: OrganizationCaller, memberId: string) => {
    const organization = await scopedOrganization(trx, caller, true);
    const member = await orNotFound(createOrganizationMemberQueries(trx).findMember(organization.id, memberId), 'organization_member', memberId);
    return { organization, member };
  };
  const keepAnOwner = async (trx: DatabaseTransactionConnection, member: OrganizationMember) => {
    if (member.role !== 'owner' || !member.active) return;
    if ((await createOrganizationMemberQueries(trx).countOtherActiveOwners(member.organizationId, member.id)) === 0) {
      throw conflict('organization_member.last_owner', 'This is the last active owner of the organization; make another member owner first.');
    }
  };
  const change = <T extends EventType>(
    verb: 'update' | 'remove',
    member: OrganizationMember,
    before: OrganizationMember,
    event: EventOf<T>,
  ): CallerChange<T> => ({
    action: `organization.member.${verb}`,
    resource: { type: 'organization_member', id: member.id },
    before,
    after: verb === 'remove' ? null : member,
    event,
  });

  return {
    list: async (caller: OrganizationCaller, query: PageQuery) => {
      const organization = await scopedOrganization(pool, caller);
      return { organization, ...(await listPage('members', query, (page) => createOrganizationMemberQueries(pool).findMembers(organization.id, page))) };
    },

    setActive: async (caller: OrganizationCaller, memberId: string, active: boolean) => {
      const result = await pool.transaction(async (trx) => {
        const { organization, member: before } = await find(trx, caller, memberId);
        if (active && !before.joinedAt) {
          throw conflict('organization_member.not_joined', 'This member has not accepted their invitation yet; it becomes active when they do.');
        }
        if (!active) await keepAnOwner(trx, before);
        const queries = createOrganizationMemberQueries(trx);
        await queries.setMemberActive(organization.id, memberId, active);
        const member = (await queries.findMember(organization.id, memberId))!;
        await record(
          trx,
          caller,
          change('update', member, before, { type: 'organization.member.updated', data: { member, previous: { active: before.active } } }),
        );
        return { organization, member };
      });
      return result;
    },

    remove: async (caller: OrganizationCaller, memberId: string) => {
      const result = await pool.transaction(async (trx) => {
        const { organization, member } = await find(trx, caller, memberId);
        await keepAnOwner(trx, member);
        await createOrganizationMemberQueries(trx).deleteMember(organization.id, memberId);
        await record(trx, caller, change('remove', member, member, { type: 'organization.member.removed', data: { member } }));
        return { organization, member };
      });
      return result;
    },
  };
}

export type OrganizationMemberService = ReturnType<typeof createOrganizationMemberService>;
