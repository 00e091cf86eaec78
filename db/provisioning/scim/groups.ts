// Directory groups as SCIM reads them: the group with its members (when asked for) and a version for ETags.
// Writes go through the directory's own queries (db/directory/groups/queries.ts).
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { ColumnLookup, ScalarColumn } from './filter-sql.ts';
import type { ScimListQuery } from './users.ts';

export const ScimGroupRow = z.object({
  id: z.uuid(),
  displayName: z.string(),
  externalId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.string(),
  members: z.array(z.object({ value: z.string(), display: z.string() })).nullable(),
});
export type ScimGroupRow = z.infer<typeof ScimGroupRow>;

const columns = (members: boolean) => sql.fragment`g.id, g.name AS "displayName", g.external_id AS "externalId",
  to_char(g.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
  to_char(g.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt",
  (extract(epoch FROM g.updated_at) * 1000000)::bigint::text AS version,
  ${
    members
      ? sql.fragment`(SELECT coalesce(jsonb_agg(jsonb_build_object('value', u.id, 'display', coalesce(u.display_name, u.user_name)) ORDER BY m.created_at, u.id), '[]')
    FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = g.id)`
      : sql.fragment`NULL::jsonb`
  } AS members`;

const scalar = (expr: FragmentSqlToken, type: ScalarColumn['type'] = 'string', caseExact = false): ScalarColumn => ({ kind: 'scalar', expr, type, caseExact });
const SCALARS: Record<string, ScalarColumn> = {
  id: scalar(sql.fragment`g.id::text`, 'string', true),
  externalid: scalar(sql.fragment`g.external_id`, 'string', true),
  displayname: scalar(sql.fragment`g.name`),
  'meta.created': scalar(sql.fragment`g.created_at`, 'dateTime'),
  'meta.lastmodified': scalar(sql.fragment`g.updated_at`, 'dateTime'),
};

/** What a SCIM filter or sortBy on Groups reads. */
export const groupColumn: ColumnLookup = (path) => {
  const bare = path.startsWith('urn:ietf:params:scim:schemas:core:2.0:group:') ? path.slice('urn:ietf:params:scim:schemas:core:2.0:group:'.length) : path;
  if (bare === 'members') {
    return {
      kind: 'multi',
      exists: (condition) => sql.fragment`EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id AND ${condition})`,
      sub: (name) => (name === 'value' ? scalar(sql.fragment`m.user_id::text`, 'string', true) : undefined),
    };
  }
  return SCALARS[bare];
};

const order = (q: ScimListQuery) => {
  const direction = q.descending ? sql.fragment`DESC` : sql.fragment`ASC`;
  return q.orderBy
    ? sql.fragment`${q.orderBy} ${direction} NULLS LAST, g.created_at ${direction}, g.id ${direction}`
    : sql.fragment`g.created_at ${direction}, g.id ${direction}`;
};

/** Queries of one environment's records: every statement is bound to `environmentId`. */
export function createScimGroupQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: (id: string, options: { members: boolean; lock?: boolean }) =>
      db.maybeOne(sql.type(ScimGroupRow)`
        SELECT ${columns(options.members)} FROM groups g WHERE g.environment_id = ${environmentId} AND g.id = ${id}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    list: async (q: ScimListQuery, members: boolean) => {
      const where = q.where ? sql.fragment` AND ${q.where}` : sql.fragment``;
      const [rows, total] = await Promise.all([
        q.limit === 0
          ? Promise.resolve([])
          : db.any(
              sql.type(
                ScimGroupRow,
              )`SELECT ${columns(members)} FROM groups g WHERE g.environment_id = ${environmentId}${where} ORDER BY ${order(q)} LIMIT ${q.limit} OFFSET ${q.offset}`,
            ),
        db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM groups g WHERE g.environment_id = ${environmentId}${where}`),
      ]);
      return { rows: [...rows], total };
    },

    /** Of `ids`, those naming users of the environment. */
    existingUsers: async (ids: string[]) =>
      new Set(
        await db.anyFirst(sql.type(z.object({ id: z.string() }))`
          SELECT id::text AS id FROM users WHERE environment_id = ${environmentId} AND id = ANY(${sql.array(ids, 'uuid')})`),
      ),

    /** A membership change bumps the group's version (its ETag). */
    touch: (id: string) => db.query(sql.unsafe`UPDATE groups SET updated_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
