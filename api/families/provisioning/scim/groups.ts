// SCIM Groups: the directory's groups, written through the directory's queries (its events, its unique names).
// Members are users of the same environment; a membership change is a directory member_added/member_removed event.
import type { DatabasePool } from 'slonik';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import type { Group } from '../../../../db/directory/groups/rows.ts';
import { createScimGroupQueries, groupColumn, type ScimGroupRow } from '../../../../db/provisioning/scim/groups.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { invalidValue } from '../../../../lib/scim/errors.ts';
import { leavesOut } from '../../../../lib/scim/projection.ts';
import { COMMON_ATTRIBUTES, GROUP_SCHEMA } from '../../../../lib/scim/resource-schemas.ts';
import { URN } from '../../../../lib/scim/schema.ts';
import type { Resource } from '../../../../lib/scim/values.ts';
import type { CallerChange } from '../../../access/caller.ts';
import { operatorIdsOf } from '../../../access/protected-operators.ts';
import { recordScim } from './context.ts';
import { checkVersion, isUuid, notFound, type ResourceDescriptor, type ScimContext } from './descriptor.ts';
import { withDatabaseErrors } from '../../../errors.ts';

type Db = Parameters<typeof createGroupQueries>[0];
const EVENT_OF = {
  create: 'directory.group.created',
  update: 'directory.group.updated',
  delete: 'directory.group.deleted',
} as const satisfies Record<string, EventType>;

const change = (verb: keyof typeof EVENT_OF, group: Group, before: Group | null): CallerChange => ({
  action: `directory.group.${verb}`,
  resource: { type: 'group', id: group.id },
  before,
  after: verb === 'delete' ? null : group,
  event: { type: EVENT_OF[verb], data: { group } },
});
const membership = (verb: 'member_add' | 'member_remove', groupId: string, userId: string): CallerChange => ({
  action: `directory.group.${verb}`,
  resource: { type: 'group', id: groupId },
  after: { userId },
  event:
    verb === 'member_add'
      ? { type: 'directory.group.member_added', data: { groupId, userId } }
      : { type: 'directory.group.member_removed', data: { groupId, userId } },
});

function groupToScim(row: ScimGroupRow, baseUrl: string): Resource {
  return {
    schemas: [URN.group],
    id: row.id,
    ...(row.externalId !== null && { externalId: row.externalId }),
    displayName: row.displayName,
    ...(row.members && { members: row.members.map((m) => ({ ...m, $ref: `${baseUrl}/Users/${m.value}`, type: 'User' })) }),
    meta: {
      resourceType: 'Group',
      created: row.createdAt,
      lastModified: row.updatedAt,
      location: `${baseUrl}/Groups/${row.id}`,
      version: `W/"${row.version}"`,
    },
  };
}

function fieldsOf(resource: Resource) {
  const { displayName, externalId } = resource;
  if (typeof displayName !== 'string' || displayName.trim() === '') throw invalidValue('displayName is required.');
  if (displayName.length > 200) throw invalidValue('displayName must be at most 200 characters.');
  if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > 256))
    throw invalidValue('externalId must be a string.');
  return { name: displayName, externalId: (externalId as string | undefined) || null };
}

/** The member ids a resource lists; undefined when it has no `members` (a write that leaves them as they are). */
function memberIds(resource: Resource): string[] | undefined {
  if (resource.members === undefined) return undefined;
  const members = resource.members as Record<string, unknown>[];
  const ids = members.map((m) => m.value);
  if (ids.some((id) => id === undefined || id === null)) throw invalidValue('members.value is required: each member names a User by its id.');
  const bad = ids.find((id) => typeof id !== 'string' || !isUuid(id));
  if (bad !== undefined) throw invalidValue(`members.value: ${JSON.stringify(bad)} is not the id of a User.`);
  return [...new Set((ids as string[]).map((id) => id.toLowerCase()))];
}

/** The row without the service's operators among its members: a SCIM client does not see them. */
const withoutOperators = (row: ScimGroupRow, operators: Set<string>): ScimGroupRow =>
  row.members && operators.size > 0 ? { ...row, members: row.members.filter((m) => !operators.has(m.value)) } : row;

export function groupDescriptor(pool: DatabasePool): ResourceDescriptor {
  const find = async (db: Db, ctx: ScimContext, id: string, options: { members: boolean; lock?: boolean }) => {
    const row = isUuid(id) ? await createScimGroupQueries(db, ctx.environmentId).find(id, options) : null;
    if (!row) throw notFound('Group', id);
    return options.members ? withoutOperators(row, await operatorIdsOf(db, ctx.environmentId)) : row;
  };

  /** Makes the group's members exactly `wanted`, recording each addition and removal. */
  const setMembers = async (db: Db, ctx: ScimContext, groupId: string, current: string[], wanted: string[]) => {
    // Operators' memberships are not the client's to change: it can neither add one nor (not seeing it) remove one.
    const operators = await operatorIdsOf(db, ctx.environmentId);
    const operator = wanted.find((id) => operators.has(id));
    if (operator) throw invalidValue(`members: no User with id ${operator}.`);
    const added = wanted.filter((id) => !current.includes(id));
    const removed = current.filter((id) => !wanted.includes(id));
    if (added.length > 0) {
      const known = await createScimGroupQueries(db, ctx.environmentId).existingUsers(added);
      const unknown = added.find((id) => !known.has(id));
      if (unknown) throw invalidValue(`members: no User with id ${unknown}.`);
    }
    const groups = createGroupQueries(db, ctx.environmentId);
    for (const userId of added) if (await groups.addMember(groupId, userId)) await recordScim(db, ctx, membership('member_add', groupId, userId));
    for (const userId of removed) if (await groups.removeMember(groupId, userId)) await recordScim(db, ctx, membership('member_remove', groupId, userId));
    return added.length + removed.length > 0;
  };

  return {
    name: 'Group',
    endpoint: '/Groups',
    description: 'Group',
    schemas: { core: GROUP_SCHEMA, extensions: [], common: COMMON_ATTRIBUTES },
    column: () => groupColumn,

    list: async (ctx, query, projection) => {
      const { rows, total } = await createScimGroupQueries(pool, ctx.environmentId).list(query, !leavesOut(projection, 'members'));
      const operators = await operatorIdsOf(pool, ctx.environmentId);
      return { total, resources: rows.map((row) => groupToScim(withoutOperators(row, operators), ctx.baseUrl)) };
    },

    get: async (ctx, id, projection) => groupToScim(await find(pool, ctx, id, { members: !projection || !leavesOut(projection, 'members') }), ctx.baseUrl),

    create: (ctx, input) => {
      const fields = fieldsOf(input);
      const members = memberIds(input) ?? [];
      return withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const group = await createGroupQueries(trx, ctx.environmentId).insertGroup(fields);
          await recordScim(trx, ctx, change('create', group, null));
          await setMembers(trx, ctx, group.id, [], members);
          return groupToScim(await find(trx, ctx, group.id, { members: true }), ctx.baseUrl);
        }),
      );
    },

    update: (ctx, id, next, ifMatch) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const row = await find(trx, ctx, id, { members: true, lock: true });
          checkVersion(ifMatch, row.version);
          const wanted = next(groupToScim(row, ctx.baseUrl));
          const fields = fieldsOf(wanted);
          const groups = createGroupQueries(trx, ctx.environmentId);
          if (fields.name !== row.displayName || fields.externalId !== row.externalId) {
            const before = await groups.findGroup(id);
            const group = await groups.updateGroup(id, fields);
            await recordScim(trx, ctx, change('update', group, before));
          }
          const members = memberIds(wanted);
          const current = (row.members ?? []).map((m) => m.value);
          if (members && (await setMembers(trx, ctx, id, current, members))) await createScimGroupQueries(trx, ctx.environmentId).touch(id);
          return groupToScim(await find(trx, ctx, id, { members: true }), ctx.baseUrl);
        }),
      ),

    remove: (ctx, id, ifMatch) =>
      pool.transaction(async (trx) => {
        const row = await find(trx, ctx, id, { members: false, lock: true });
        checkVersion(ifMatch, row.version);
        const groups = createGroupQueries(trx, ctx.environmentId);
        const before = (await groups.findGroup(id))!;
        await groups.deleteGroup(id);
        await recordScim(trx, ctx, change('delete', before, before));
      }),
  };
}
