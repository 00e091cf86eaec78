// Directory users as SCIM reads them: the directory row with its SCIM-only attributes (`scim`), its groups, the
// display name of its manager and a version (microseconds of its last change) for ETags. Writes go through the
// directory's own queries (db/directory/users/queries.ts); `scim` among them.
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { userColumns } from '../../identity/users/queries.ts';
import { DirectoryUser } from '../../directory/users/rows.ts';
import type { ColumnLookup, MultiColumn, ScalarColumn } from './filter-sql.ts';

export const ScimUserRow = DirectoryUser.extend({
  rawExternalId: z.string().nullable(),
  scim: z.record(z.string(), z.unknown()),
  groups: z.array(z.object({ value: z.string(), display: z.string() })),
  managerName: z.string().nullable(),
  version: z.string(),
});
export type ScimUserRow = z.infer<typeof ScimUserRow>;

// The manager is looked up by primary key: a stored id that is no UUID names no one.
const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const columns = sql.fragment`${userColumns}, u.attributes, u.scim, u.external_id AS "rawExternalId",
  (SELECT coalesce(jsonb_agg(jsonb_build_object('value', g.id, 'display', g.name) ORDER BY g.name, g.id), '[]')
    FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = u.id) AS groups,
  (SELECT coalesce(mu.display_name, mu.user_name) FROM users mu WHERE mu.environment_id = u.environment_id
    AND mu.id = CASE WHEN u.attributes->>'manager' ~* ${UUID} THEN (u.attributes->>'manager')::uuid END) AS "managerName",
  (extract(epoch FROM u.updated_at) * 1000000)::bigint::text AS version`;

const scalar = (expr: FragmentSqlToken, type: ScalarColumn['type'] = 'string', caseExact = false): ScalarColumn => ({ kind: 'scalar', expr, type, caseExact });

/** A jsonb array column of `{ value, type, … }` items. */
const items = (column: string, subs: string[], narrow?: MultiColumn['narrow']): MultiColumn => ({
  kind: 'multi',
  exists: (condition) => sql.fragment`EXISTS (SELECT 1 FROM jsonb_array_elements(${sql.identifier(['u', column])}) e WHERE ${condition})`,
  sub: (name) => {
    const sub = subs.find((s) => s.toLowerCase() === name);
    return sub ? scalar(sql.fragment`e->>${sub}`) : undefined;
  },
  narrow,
});

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:';
const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'];
const SCALARS: Record<string, ScalarColumn> = {
  id: scalar(sql.fragment`u.id::text`, 'string', true),
  externalid: scalar(sql.fragment`u.external_id`, 'string', true),
  username: scalar(sql.fragment`u.user_name`),
  displayname: scalar(sql.fragment`u.display_name`),
  nickname: scalar(sql.fragment`u.nick_name`),
  profileurl: scalar(sql.fragment`u.profile_url`),
  title: scalar(sql.fragment`u.title`),
  usertype: scalar(sql.fragment`u.user_type`),
  preferredlanguage: scalar(sql.fragment`u.preferred_language`),
  locale: scalar(sql.fragment`u.locale`),
  timezone: scalar(sql.fragment`u.timezone`),
  active: scalar(sql.fragment`u.active`, 'boolean'),
  'meta.created': scalar(sql.fragment`u.created_at`, 'dateTime'),
  'meta.lastmodified': scalar(sql.fragment`u.updated_at`, 'dateTime'),
  ...Object.fromEntries(NAME_PARTS.map((p) => [`name.${p.toLowerCase()}`, scalar(sql.fragment`u.names->>${p}`)])),
  ...Object.fromEntries(
    ['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((a) => [
      `${ENTERPRISE}${a.toLowerCase()}`,
      scalar(sql.fragment`u.attributes->>${a}`),
    ]),
  ),
  [`${ENTERPRISE}manager.value`]: scalar(sql.fragment`u.attributes->>'manager'`, 'string', true),
  [`${ENTERPRISE}manager`]: scalar(sql.fragment`u.attributes->>'manager'`, 'string', true),
};

/** What a SCIM filter or sortBy on Users reads. */
export const userColumn = (environmentId: string): ColumnLookup => {
  const multis: Record<string, MultiColumn> = {
    // An email equality is answered from the index of emails (user_emails), then checked on the item.
    emails: items('emails', ['value', 'type'], (sub, value) =>
      sub === 'value' ? sql.fragment`u.id IN (SELECT user_id FROM user_emails WHERE environment_id = ${environmentId} AND email = lower(${value}))` : undefined,
    ),
    phonenumbers: items('phone_numbers', ['value', 'type']),
    addresses: items('addresses', ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type']),
    photos: items('photos', ['value', 'type']),
    groups: {
      kind: 'multi',
      exists: (condition) => sql.fragment`EXISTS (SELECT 1 FROM group_members gm JOIN groups g ON g.id = gm.group_id WHERE gm.user_id = u.id AND ${condition})`,
      sub: (name) => (name === 'value' ? scalar(sql.fragment`g.id::text`, 'string', true) : name === 'display' ? scalar(sql.fragment`g.name`) : undefined),
    },
  };
  return (path) => {
    const bare = path.startsWith('urn:ietf:params:scim:schemas:core:2.0:user:') ? path.slice('urn:ietf:params:scim:schemas:core:2.0:user:'.length) : path;
    return SCALARS[bare] ?? multis[bare];
  };
};

export interface ScimListQuery {
  where: FragmentSqlToken | undefined;
  orderBy: FragmentSqlToken | undefined;
  descending: boolean;
  offset: number;
  limit: number;
}

const order = (q: ScimListQuery) => {
  const direction = q.descending ? sql.fragment`DESC` : sql.fragment`ASC`;
  return q.orderBy
    ? sql.fragment`${q.orderBy} ${direction} NULLS LAST, u.created_at ${direction}, u.id ${direction}`
    : sql.fragment`u.created_at ${direction}, u.id ${direction}`;
};

/** Queries of one environment's records: every statement is bound to `environmentId`. */
export function createScimUserQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: (id: string, lock = false) =>
      db.maybeOne(sql.type(ScimUserRow)`
        SELECT ${columns} FROM users u WHERE u.environment_id = ${environmentId} AND u.id = ${id} ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    list: async (q: ScimListQuery) => {
      const where = q.where ? sql.fragment` AND ${q.where}` : sql.fragment``;
      const [rows, total] = await Promise.all([
        q.limit === 0
          ? Promise.resolve([])
          : db.any(
              sql.type(
                ScimUserRow,
              )`SELECT ${columns} FROM users u WHERE u.environment_id = ${environmentId}${where} ORDER BY ${order(q)} LIMIT ${q.limit} OFFSET ${q.offset}`,
            ),
        db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM users u WHERE u.environment_id = ${environmentId}${where}`),
      ]);
      return { rows: [...rows], total };
    },
  };
}
