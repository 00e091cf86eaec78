// The users of an environment's directory. userName, every email and externalId are unique per environment
// (0011_directory.sql); the service maps their unique violations to 409s.
import { sql, type CommonQueryMethods } from 'slonik';
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
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const likePrefix = (prefix: string) => prefix.replace(/[\\%_]/g, (c) => `\\${c}`);

function conditions(environmentId: string, filter: UserFilter) {
  const where = [sql.fragment`environment_id = ${environmentId}`];
  const emails = (match: ReturnType<typeof sql.fragment>) =>
    sql.fragment`id IN (SELECT user_id FROM user_emails WHERE environment_id = ${environmentId} AND ${match})`;
  if (filter.email !== undefined) where.push(emails(sql.fragment`email = lower(${filter.email})`));
  // Lower-cased and escaped, then a constant prefix: the plan scans user_emails' primary key (C collation).
  if (filter.emailPrefix !== undefined) where.push(emails(sql.fragment`email LIKE lower(${likePrefix(filter.emailPrefix)}) || '%'`));
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

export function createDirectoryUserQueries(db: CommonQueryMethods) {
  return {
    findUser: (environmentId: string, id: string, lock: 'update' | 'key share' | null = null) =>
      db.maybeOne(sql.type(DirectoryUser)`
        SELECT ${columns} FROM users WHERE environment_id = ${environmentId} AND id = ${id}
        ${lock === 'update' ? sql.fragment`FOR UPDATE` : lock ? sql.fragment`FOR KEY SHARE` : sql.fragment``}`),

    /** Up to `limit` users after `after` in (createdAt, id) order, each with its cursor position. */
    findUsers: async (environmentId: string, filter: UserFilter, after: UserCursor | undefined, limit: number) => {
      const where = conditions(environmentId, filter);
      if (after) where.push(sql.fragment`(created_at, id) > (${after.at}::timestamptz, ${after.id})`);
      const rows = await db.any(sql.type(Listed)`
        SELECT ${columns}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
        FROM users WHERE ${sql.join(where, sql.fragment` AND `)}
        ORDER BY created_at, id LIMIT ${limit}`);
      return rows.map(({ cursorAt, ...user }) => ({ user, cursor: { at: cursorAt, id: user.id } }));
    },

    /** The members of a group, oldest user first. */
    findMembers: (environmentId: string, groupId: string, page: PageRequest) =>
      selectPage(
        db,
        DirectoryUser,
        sql.fragment`SELECT ${columns} FROM users
          WHERE environment_id = ${environmentId} AND id IN (SELECT user_id FROM group_members WHERE group_id = ${groupId})`,
        sql.fragment`created_at, id`,
        page,
      ),

    insertUser: (environmentId: string, fields: UserFields) => {
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
        WHERE id = ${id} RETURNING ${columns}`),

    deleteUser: (id: string) => db.query(sql.unsafe`DELETE FROM users WHERE id = ${id}`),
  };
}
