// The groups of an environment's directory and their members (users of the same environment).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Group, type GroupFields } from './rows.ts';

const columns = sql.fragment`
  g.id, g.environment_id AS "environmentId", g.name, g.description, g.external_id AS "externalId", g.attributes,
  (SELECT count(*)::int FROM group_members m WHERE m.group_id = g.id) AS "memberCount",
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

const COLUMN_OF: Record<keyof GroupFields, string> = { name: 'name', description: 'description', externalId: 'external_id', attributes: 'attributes' };

const given = (fields: GroupFields) =>
  (Object.keys(COLUMN_OF) as (keyof GroupFields)[])
    .filter((key) => fields[key] !== undefined)
    .map((key) => [COLUMN_OF[key], key === 'attributes' ? sql.jsonb(fields.attributes as never) : (fields[key] as string | null)] as const);

export interface GroupFilter {
  name?: string | undefined;
  externalId?: string | undefined;
}

const Added = z.object({ groupId: z.uuid() });

/** Queries of one environment's directory: every statement is bound to `environmentId`. */
export function createGroupQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findGroup: (id: string, lock: 'update' | 'key share' | null = null) =>
      db.maybeOne(sql.type(Group)`
        SELECT ${columns} FROM groups g WHERE g.environment_id = ${environmentId} AND g.id = ${id}
        ${lock === 'update' ? sql.fragment`FOR UPDATE` : lock ? sql.fragment`FOR KEY SHARE` : sql.fragment``}`),

    findGroups: (filter: GroupFilter, page: PageRequest) => {
      const where = [sql.fragment`g.environment_id = ${environmentId}`];
      if (filter.name !== undefined) where.push(sql.fragment`lower(g.name) = lower(${filter.name})`);
      if (filter.externalId !== undefined) where.push(sql.fragment`g.external_id = ${filter.externalId}`);
      return selectPage(
        db,
        Group,
        sql.fragment`SELECT ${columns} FROM groups g WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`g.created_at, g.id`,
        page,
      );
    },

    /** The groups a user belongs to, oldest first. */
    findGroupsOfUser: (userId: string, page: PageRequest) =>
      selectPage(
        db,
        Group,
        sql.fragment`SELECT ${columns} FROM groups g
          WHERE g.environment_id = ${environmentId} AND g.id IN (SELECT group_id FROM group_members WHERE user_id = ${userId})`,
        sql.fragment`g.created_at, g.id`,
        page,
      ),

    insertGroup: async (fields: GroupFields) => {
      const values = given(fields);
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO groups (environment_id, ${sql.join(
          values.map(([column]) => sql.identifier([column])),
          sql.fragment`, `,
        )})
        VALUES (${environmentId}, ${sql.join(
          values.map(([, value]) => value),
          sql.fragment`, `,
        )})
        RETURNING id`);
      return db.one(sql.type(Group)`SELECT ${columns} FROM groups g WHERE g.environment_id = ${environmentId} AND g.id = ${id}`);
    },

    updateGroup: async (id: string, fields: GroupFields) => {
      await db.query(sql.unsafe`
        UPDATE groups SET ${sql.join(
          [...given(fields).map(([column, value]) => sql.fragment`${sql.identifier([column])} = ${value}`), sql.fragment`updated_at = now()`],
          sql.fragment`, `,
        )}
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return db.one(sql.type(Group)`SELECT ${columns} FROM groups g WHERE g.environment_id = ${environmentId} AND g.id = ${id}`);
    },

    deleteGroup: (id: string) => db.query(sql.unsafe`DELETE FROM groups WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Whether the user was added (false: already a member). */
    addMember: async (groupId: string, userId: string) =>
      (await db.maybeOne(sql.type(Added)`
        INSERT INTO group_members (group_id, user_id, environment_id) VALUES (${groupId}, ${userId}, ${environmentId})
        ON CONFLICT DO NOTHING RETURNING group_id AS "groupId"`)) !== null,

    /** Whether the user was a member. */
    removeMember: async (groupId: string, userId: string) =>
      (await db.maybeOne(sql.type(Added)`
        DELETE FROM group_members WHERE environment_id = ${environmentId} AND group_id = ${groupId} AND user_id = ${userId} RETURNING group_id AS "groupId"`)) !==
      null,
  };
}
