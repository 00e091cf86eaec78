// The groups of an environment's directory and their members. A role assigned to a group is held by its members.
import type { DatabasePool } from 'slonik';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import type { Group } from '../../../../db/directory/groups/rows.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { ApiError, orNotFound, withDatabaseErrors } from '../../../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { guardOperator } from '../../../access/protected-operators.ts';
import type { CreateGroupBody, GroupsQuery, UpdateGroupBody } from './schemas.ts';

type Db = Parameters<typeof createGroupQueries>[0];
type Verb = 'create' | 'update' | 'delete' | 'member_add' | 'member_remove';
const EVENT_OF = {
  create: 'directory.group.created',
  update: 'directory.group.updated',
  delete: 'directory.group.deleted',
  member_add: 'directory.group.member_added',
  member_remove: 'directory.group.member_removed',
} as const satisfies Record<Verb, EventType>;

const change = (verb: 'create' | 'update' | 'delete', group: Group, before: Group | null): CallerChange => ({
  action: `directory.group.${verb}`,
  resource: { type: 'group', id: group.id },
  before,
  after: verb === 'delete' ? null : group,
  event: { type: EVENT_OF[verb], data: { group } },
});

export function createGroupService(pool: DatabasePool) {
  const groups = (db: Db, caller: EnvironmentCaller) => createGroupQueries(db, caller.scope.environmentId);
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock: 'update' | 'key share' | null = null) =>
    orNotFound(groups(db, caller).findGroup(id, lock), 'group', id);

  /** Both ends of a membership, held until the change commits (a concurrent delete waits for it). */
  const findMembership = async (db: Db, caller: EnvironmentCaller, groupId: string, userId: string) => {
    await find(db, caller, groupId, 'key share');
    await orNotFound(createDirectoryUserQueries(db, caller.scope.environmentId).findUser(userId, 'key share'), 'user', userId);
    // An operator's memberships shape its access in the operators' environment: only who may manage it changes them.
    await guardOperator(db, caller, userId);
  };
  const membership = (verb: 'member_add' | 'member_remove', groupId: string, userId: string): CallerChange => ({
    action: `directory.group.${verb}`,
    resource: { type: 'group', id: groupId },
    after: { userId },
    event: { type: EVENT_OF[verb], data: { groupId, userId } },
  });

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: GroupsQuery) => {
      const { name, externalId, ...page } = query;
      return listPage('groups', page, (p) => groups(pool, caller).findGroups({ name, externalId }, p));
    },

    members: async (caller: EnvironmentCaller, id: string, query: PageQuery) => {
      await find(pool, caller, id);
      return listPage('users', query, (page) => createDirectoryUserQueries(pool, caller.scope.environmentId).findMembers(id, page));
    },

    create: (caller: EnvironmentCaller, body: CreateGroupBody) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const group = await groups(trx, caller).insertGroup(body);
          await record(trx, caller, change('create', group, null));
          return group;
        }),
      ),

    update: (caller: EnvironmentCaller, id: string, body: UpdateGroupBody) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const before = await find(trx, caller, id, 'update');
          if (Object.keys(body).length === 0) return before; // nothing to change: no write, no event
          const group = await groups(trx, caller).updateGroup(id, body);
          await record(trx, caller, change('update', group, before));
          return group;
        }),
      ),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, 'update');
        await groups(trx, caller).deleteGroup(id);
        await record(trx, caller, change('delete', before, before));
        return { success: true as const, id };
      }),

    /** Adds the user; `added` is false (and nothing is emitted) when it already was a member. */
    addMember: (caller: EnvironmentCaller, groupId: string, userId: string) =>
      pool.transaction(async (trx) => {
        await findMembership(trx, caller, groupId, userId);
        const added = await groups(trx, caller).addMember(groupId, userId);
        if (added) await record(trx, caller, membership('member_add', groupId, userId));
        return { added, group: await find(trx, caller, groupId) };
      }),

    removeMember: (caller: EnvironmentCaller, groupId: string, userId: string) =>
      pool.transaction(async (trx) => {
        await findMembership(trx, caller, groupId, userId);
        if (!(await groups(trx, caller).removeMember(groupId, userId))) {
          throw new ApiError(404, 'group.member_not_found', `User ${userId} is not a member of group ${groupId}.`);
        }
        await record(trx, caller, membership('member_remove', groupId, userId));
        return find(trx, caller, groupId);
      }),
  };
}

export type GroupService = ReturnType<typeof createGroupService>;
