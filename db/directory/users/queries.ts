// The users of an environment's directory. userName, every email and externalId are unique per environment
// (0011_directory.sql); the service maps their unique violations to 409s.
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { userColumns } from '../../identity/users/queries.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { DirectoryUser, type UserFields } from './rows.ts';

const columns = sql.fragment`${userColumns}, attributes`;

const COLUMN_OF: Record<keyof UserFields, string> = {
  userName: 'user_name',
  externalId: 'external_id',
  displayName: 'display_name',
  nickName: 'nick_name',
  profileUrl: 'profile_url',
  title: 'title',
  userType: 'user_type',
  preferredLanguage: 'preferred_language',
  locale: 'locale',
  timezone: 'timezone',
  active: 'active',
  names: 'names',
  emails: 'emails',
  phoneNumbers: 'phone_numbers',
  addresses: 'addresses',
  photos: 'photos',
  attributes: 'attributes',
  scim: 'scim',
};

const valueOf = (value: unknown) => (value !== null && typeof value === 'object' ? sql.jsonb(value as never) : (value as string | boolean | null));

const given = (fields: UserFields) =>
  (Object.keys(COLUMN_OF) as (keyof UserFields)[]).filter((key) => fields[key] !== undefined).map((key) => [COLUMN_OF[key], valueOf(fields[key])] as const);

/** A position in the (createdAt, id) order: createdAt with its microseconds, which the API's timestamps round off. */
export interface UserCursor {
  at: string;
  id: string;
}

export interface UserFilter {
  email?: string | undefined;
  emailPrefix?: string | undefined;
  userName?: string | undefined;
  externalId?: string | undefined;
  active?: boolean | undefined;
  groupId?: string | undefined;
}

const Listed = DirectoryUser.extend({ cursorAt: z.string() });
const MatchedIds = z.object({ ids: z.array(z.uuid()).nullable() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const likePrefix = (prefix: string) => prefix.replace(/[\\%_]/g, (c) => `\\${c}`);

// An email prefix is answered in two steps: the ids of the users it matches, from a range of the emails' primary
// key, then those users by id; when more than FEW_MATCHES match, the page walks users in list order instead, and
// fills soon. In one statement the planner answers the middle ground by scanning every user of the environment.
const FEW_MATCHES = 1000;

async function conditions(db: CommonQueryMethods, environmentId: string, filter: UserFilter) {
  const where = [sql.fragment`environment_id = ${environmentId}`];
  const emails = (match: FragmentSqlToken) => sql.fragment`id IN (SELECT user_id FROM user_emails WHERE environment_id = ${environmentId} AND ${match})`;
  if (filter.email !== undefined) where.push(emails(sql.fragment`email = lower(${filter.email})`));
  if (filter.emailPrefix !== undefined) {
    // Lower-cased and escaped, then a constant prefix: a range of user_emails' primary key (C collation).
    const prefix = sql.fragment`email LIKE lower(${likePrefix(filter.emailPrefix)}) || '%'`;
    const ids = await db.oneFirst(sql.type(MatchedIds)`
      SELECT CASE WHEN count(*) > ${FEW_MATCHES} THEN NULL ELSE coalesce(array_agg(DISTINCT user_id), '{}') END AS ids
      FROM (SELECT user_id FROM user_emails WHERE environment_id = ${environmentId} AND ${prefix} ORDER BY email LIMIT ${FEW_MATCHES + 1}) m`);
    where.push(ids === null ? emails(prefix) : sql.fragment`id = ANY(${sql.array(ids, 'uuid')})`);
  }
  if (filter.userName !== undefined) where.push(sql.fragment`lower(user_name) = lower(${filter.userName})`);
  if (filter.externalId !== undefined) {
    // A user without an externalId shows its id as one (rows.ts), so the filter finds it by that too.
    const byId = UUID.test(filter.externalId) ? sql.fragment` OR (external_id IS NULL AND id = ${filter.externalId})` : sql.fragment``;
    where.push(sql.fragment`(external_id = ${filter.externalId}${byId})`);
  }
  if (filter.active !== undefined) where.push(sql.fragment`active = ${filter.active}`);
  if (filter.groupId !== undefined) where.push(sql.fragment`id IN (SELECT user_id FROM group_members WHERE group_id = ${filter.groupId})`);
  return where;
}

/** Queries of one environment's directory: every statement is bound to `environmentId`. */
export function createDirectoryUserQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findUser: (id: string, lock: 'update' | 'key share' | null = null) =>
      db.maybeOne(sql.type(DirectoryUser)`
        SELECT ${columns} FROM users WHERE environment_id = ${environmentId} AND id = ${id}
        ${lock === 'update' ? sql.fragment`FOR UPDATE` : lock ? sql.fragment`FOR KEY SHARE` : sql.fragment``}`),

    /** Up to `limit` users after `after` in (createdAt, id) order, each with its cursor position. */
    findUsers: async (filter: UserFilter, after: UserCursor | undefined, limit: number) => {
      const where = await conditions(db, environmentId, filter);
      if (after) where.push(sql.fragment`(created_at, id) > (${after.at}::timestamptz, ${after.id})`);
      const rows = await db.any(sql.type(Listed)`
        SELECT ${columns}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
        FROM users WHERE environment_id = ${environmentId} AND ${sql.join(where, sql.fragment` AND `)}
        ORDER BY created_at, id LIMIT ${limit}`);
      return rows.map(({ cursorAt, ...user }) => ({ user, cursor: { at: cursorAt, id: user.id } }));
    },

    /** The members of a group, oldest user first. */
    findMembers: (groupId: string, page: PageRequest) =>
      selectPage(
        db,
        DirectoryUser,
        sql.fragment`SELECT ${columns} FROM users
          WHERE environment_id = ${environmentId} AND id IN (SELECT user_id FROM group_members WHERE group_id = ${groupId})`,
        sql.fragment`created_at, id`,
        page,
      ),

    insertUser: (fields: UserFields) => {
      const values = given(fields);
      return db.one(sql.type(DirectoryUser)`
        INSERT INTO users (environment_id, ${sql.join(
          values.map(([column]) => sql.identifier([column])),
          sql.fragment`, `,
        )})
        VALUES (${environmentId}, ${sql.join(
          values.map(([, value]) => value),
          sql.fragment`, `,
        )})
        RETURNING ${columns}`);
    },

    updateUser: (id: string, fields: UserFields) =>
      db.one(sql.type(DirectoryUser)`
        UPDATE users SET ${sql.join(
          [...given(fields).map(([column, value]) => sql.fragment`${sql.identifier([column])} = ${value}`), sql.fragment`updated_at = now()`],
          sql.fragment`, `,
        )}
        WHERE environment_id = ${environmentId} AND id = ${id} RETURNING ${columns}`),

    deleteUser: (id: string) => db.query(sql.unsafe`DELETE FROM users WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
