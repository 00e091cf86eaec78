// Widget tokens of one environment: every statement is bound to `environmentId`. Status is read-time.
import { sql, type CommonQueryMethods } from 'slonik';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { WidgetToken, type WidgetKind } from './rows.ts';

const columns = sql.fragment`
  w.id, w.environment_id AS "environmentId", w.organization_id AS "organizationId", w.user_id AS "userId", w.kind, w.scopes, w.origins,
  jsonb_build_object('type', w.issued_by_type, 'id', w.issued_by_id) AS "issuedBy", w.created_at AS "createdAt", w.expires_at AS "expiresAt",
  w.revoked_at AS "revokedAt",
  CASE WHEN w.revoked_at IS NOT NULL THEN 'revoked' WHEN w.expires_at <= now() THEN 'expired' ELSE 'active' END AS status`;

export interface NewWidgetToken {
  id: string;
  tenantId: string;
  organizationId: string | null;
  userId: string;
  kind: WidgetKind;
  scopes: string[];
  origins: string[];
  issuedBy: { type: string; id: string | null };
  lifetimeSeconds: number;
}

export function createWidgetTokenQueries(db: CommonQueryMethods, environmentId: string) {
  const find = (id: string, lock = false) =>
    db.maybeOne(sql.type(WidgetToken)`
      SELECT ${columns} FROM widget_tokens w WHERE w.environment_id = ${environmentId} AND w.id = ${id}
      ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
  return {
    find,

    insert: async (t: NewWidgetToken) => {
      await db.query(sql.unsafe`
        INSERT INTO widget_tokens (id, environment_id, tenant_id, organization_id, user_id, kind, scopes, origins, issued_by_type, issued_by_id, expires_at)
        VALUES (${t.id}, ${environmentId}, ${t.tenantId}, ${t.organizationId}, ${t.userId}, ${t.kind}, ${sql.array(t.scopes, 'text')},
          ${sql.array(t.origins, 'text')}, ${t.issuedBy.type}, ${t.issuedBy.id}, now() + make_interval(secs => ${t.lifetimeSeconds}))`);
      return (await find(t.id))!;
    },

    findPage: (filter: { userId?: string | undefined; kind?: WidgetKind | undefined }, page: PageRequest) => {
      const where = [sql.fragment`w.environment_id = ${environmentId}`];
      if (filter.userId) where.push(sql.fragment`w.user_id = ${filter.userId}`);
      if (filter.kind) where.push(sql.fragment`w.kind = ${filter.kind}`);
      return selectPage(
        db,
        WidgetToken,
        sql.fragment`SELECT ${columns} FROM widget_tokens w WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`w.created_at DESC, w.id`,
        page,
      );
    },

    revoke: async (id: string) => {
      await db.query(sql.unsafe`UPDATE widget_tokens SET revoked_at = now() WHERE environment_id = ${environmentId} AND id = ${id} AND revoked_at IS NULL`);
      return (await find(id))!;
    },
  };
}
