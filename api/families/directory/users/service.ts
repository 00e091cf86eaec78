// The users of an environment's directory: the subjects of access decisions. Deactivating or deleting one takes
// effect on every decision and credential at once through the database's NOTIFY triggers (models, credentials).
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries, type UserFilter } from '../../../../db/directory/users/queries.ts';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import type { DirectoryUser, UserFields } from '../../../../db/directory/users/rows.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { orNotFound, withDatabaseErrors } from '../../../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { keysetPage, listPage, type PageQuery } from '../../../common/schemas.ts';
import { endGrantsIfDeactivated } from '../../../access/deactivation.ts';
import { guardOperator } from '../../../access/protected-operators.ts';
import { encodeUserCursor, type CreateUserBody, type UpdateUserBody, type UsersQuery } from './schemas.ts';

type Db = Parameters<typeof createDirectoryUserQueries>[0];
type Verb = 'create' | 'update' | 'deactivate' | 'activate' | 'delete';
const EVENT_OF = {
  create: 'directory.user.created',
  update: 'directory.user.updated',
  deactivate: 'directory.user.deactivated',
  activate: 'directory.user.activated',
  delete: 'directory.user.deleted',
} as const satisfies Record<Verb, EventType>;

const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;
const ADDRESS_PARTS = ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'] as const;

const withId = <T extends object>(item: T) => ({ id: crypto.randomUUID(), ...item });
const item = <T extends { value: string; type?: string | null | undefined }>(i: T) => withId({ ...i, type: i.type ?? null });

/** The stored form of what a request gives: sub-items get ids, absent optional parts are null. */
function toFields(body: UpdateUserBody): UserFields {
  const { names, emails, phoneNumbers, addresses, photos, ...scalars } = body;
  const nulled = <K extends string>(keys: readonly K[], given: Partial<Record<K, string | null>>) =>
    Object.fromEntries(keys.map((k) => [k, given[k] ?? null])) as Record<K, string | null>;
  return {
    ...scalars,
    ...(names !== undefined && {
      names: names && withId(nulled(NAME_PARTS, names)),
    }),
    ...(emails && { emails: emails.map(item) }),
    ...(phoneNumbers && { phoneNumbers: phoneNumbers.map(item) }),
    ...(photos && { photos: photos.map(item) }),
    ...(addresses && { addresses: addresses.map((a) => withId(nulled(ADDRESS_PARTS, a))) }),
  };
}

/** The audit entry and event of a change to a directory user, whichever API made it (the directory's, SCIM's). */
export const userChange = (verb: Verb, user: DirectoryUser, before: DirectoryUser | null): CallerChange => ({
  action: `directory.user.${verb}`,
  resource: { type: 'user', id: user.id },
  before,
  after: verb === 'delete' ? null : user,
  event: { type: EVENT_OF[verb], data: { user } },
});

export function createDirectoryUserService(pool: DatabasePool) {
  const users = (db: Db, caller: EnvironmentCaller) => createDirectoryUserQueries(db, caller.scope.environmentId);
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock: 'update' | null = null) => orNotFound(users(db, caller).findUser(id, lock), 'user', id);
  /** The user a write changes, locked; an operator only for a caller that may manage it. */
  const findForWrite = async (db: Db, caller: EnvironmentCaller, id: string) => {
    const user = await find(db, caller, id, 'update');
    await guardOperator(db, caller, id);
    return user;
  };

  const setActive = (caller: EnvironmentCaller, id: string, active: boolean) =>
    pool.transaction(async (trx) => {
      const before = await findForWrite(trx, caller, id);
      if (before.active === active) return before; // already so: nothing changes, nothing is emitted
      const user = await users(trx, caller).updateUser(id, { active });
      await record(trx, caller, userChange(active ? 'activate' : 'deactivate', user, before));
      await endGrantsIfDeactivated(trx, caller, before, user);
      return user;
    });

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: async (caller: EnvironmentCaller, query: UsersQuery) => {
      const { limit, cursor, ...filter } = query;
      const rows = await users(pool, caller).findUsers(filter satisfies UserFilter, cursor, limit + 1);
      const page = keysetPage('users', rows, limit, (last) => encodeUserCursor(last.cursor));
      return { ...page, users: page.users.map((r) => r.user) };
    },

    groupsOf: async (caller: EnvironmentCaller, id: string, query: PageQuery) => {
      await find(pool, caller, id);
      return listPage('groups', query, (page) => createGroupQueries(pool, caller.scope.environmentId).findGroupsOfUser(id, page));
    },

    create: (caller: EnvironmentCaller, body: CreateUserBody) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const user = await users(trx, caller).insertUser(toFields(body));
          await record(trx, caller, userChange('create', user, null));
          return user;
        }),
      ),

    update: (caller: EnvironmentCaller, id: string, body: UpdateUserBody) =>
      withDatabaseErrors(() =>
        pool.transaction(async (trx) => {
          const before = await findForWrite(trx, caller, id);
          if (Object.keys(body).length === 0) return before; // nothing to change: no write, no event
          const user = await users(trx, caller).updateUser(id, toFields(body));
          await record(trx, caller, userChange('update', user, before));
          await endGrantsIfDeactivated(trx, caller, before, user);
          return user;
        }),
      ),

    deactivate: (caller: EnvironmentCaller, id: string) => setActive(caller, id, false),
    activate: (caller: EnvironmentCaller, id: string) => setActive(caller, id, true),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await findForWrite(trx, caller, id);
        await users(trx, caller).deleteUser(id);
        await record(trx, caller, userChange('delete', before, before));
        return { success: true as const, id };
      }),
  };
}

export type DirectoryUserService = ReturnType<typeof createDirectoryUserService>;
