// Impersonation grants and settings of an environment. Status is read-time: a grant past expiresAt is expired
// even before the impersonation-expiry process has marked it.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { DEFAULT_SETTINGS, ImpersonationGrant, ImpersonationSettings } from './rows.ts';

const columns = sql.fragment`
  g.id, g.environment_id AS "environmentId", g.user_id AS "userId", jsonb_build_object('type', g.actor_type, 'id', g.actor_id) AS actor,
  g.reason, g.created_at AS "createdAt", g.expires_at AS "expiresAt", g.revoked_at AS "revokedAt",
  CASE WHEN g.revoked_by_type IS NULL THEN NULL ELSE jsonb_build_object('type', g.revoked_by_type, 'id', g.revoked_by_id) END AS "revokedBy",
  g.revoke_reason AS "revokeReason",
  CASE WHEN g.revoked_at IS NOT NULL THEN 'revoked' WHEN g.expired_at IS NOT NULL OR g.expires_at <= now() THEN 'expired' ELSE 'active' END AS status`;

export interface GrantFilter {
  status?: 'active' | 'expired' | 'revoked' | undefined;
  userId?: string | undefined;
  actorId?: string | undefined;
}

export interface NewGrant {
  tenantId: string;
  userId: string;
  actor: { type: string; id: string };
  reason: string;
  tokenId: string;
  durationSeconds: number;
}

const STATUS_CONDITION = {
  revoked: sql.fragment`g.revoked_at IS NOT NULL`,
  expired: sql.fragment`g.revoked_at IS NULL AND (g.expired_at IS NOT NULL OR g.expires_at <= now())`,
  active: sql.fragment`g.revoked_at IS NULL AND g.expired_at IS NULL AND g.expires_at > now()`,
};

/** Queries of one environment's impersonation grants and settings: every statement is bound to `environmentId`. */
export function createImpersonationQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) =>
    db.one(sql.type(ImpersonationGrant)`SELECT ${columns} FROM impersonation_grants g WHERE g.environment_id = ${environmentId} AND g.id = ${id}`);
  return {
    byId,

    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(ImpersonationGrant)`
        SELECT ${columns} FROM impersonation_grants g WHERE g.id = ${id} AND g.environment_id = ${environmentId}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (filter: GrantFilter, page: PageRequest) => {
      const where = [sql.fragment`g.environment_id = ${environmentId}`];
      if (filter.status) where.push(STATUS_CONDITION[filter.status]);
      if (filter.userId) where.push(sql.fragment`g.user_id = ${filter.userId}`);
      if (filter.actorId) where.push(sql.fragment`g.actor_id = ${filter.actorId}`);
      return selectPage(
        db,
        ImpersonationGrant,
        sql.fragment`SELECT ${columns} FROM impersonation_grants g WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`g.created_at DESC, g.id`,
        page,
      );
    },

    insert: async (g: NewGrant) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO impersonation_grants (environment_id, tenant_id, user_id, actor_type, actor_id, reason, token_id, expires_at)
        VALUES (${environmentId}, ${g.tenantId}, ${g.userId}, ${g.actor.type}, ${g.actor.id}, ${g.reason}, ${g.tokenId},
          now() + make_interval(secs => ${g.durationSeconds}))
        RETURNING id`);
      return byId(id);
    },

    revoke: async (id: string, by: { type: string; id: string | null }, reason: string | null) => {
      await db.query(sql.unsafe`
        UPDATE impersonation_grants SET revoked_at = now(), revoked_by_type = ${by.type}, revoked_by_id = ${by.id}, revoke_reason = ${reason}
        WHERE environment_id = ${environmentId} AND id = ${id} AND revoked_at IS NULL`);
      return byId(id);
    },

    settings: async () =>
      (await db.maybeOne(sql.type(ImpersonationSettings)`
        SELECT max_duration_minutes AS "maxDurationMinutes", notify_user AS "notifyUser" FROM impersonation_settings
        WHERE environment_id = ${environmentId}`)) ?? DEFAULT_SETTINGS,

    saveSettings: (s: ImpersonationSettings) =>
      db.one(sql.type(ImpersonationSettings)`
        INSERT INTO impersonation_settings (environment_id, max_duration_minutes, notify_user) VALUES (${environmentId}, ${s.maxDurationMinutes}, ${s.notifyUser})
        ON CONFLICT (environment_id) DO UPDATE SET max_duration_minutes = EXCLUDED.max_duration_minutes, notify_user = EXCLUDED.notify_user, updated_at = now()
        RETURNING max_duration_minutes AS "maxDurationMinutes", notify_user AS "notifyUser"`),
  };
}

// unscoped: the impersonation-expiry process acts on the grant it was started for, by id (its input carries no environment).
export function createImpersonationProcessQueries(db: CommonQueryMethods) {
  return {
    byId: (id: string) => db.one(sql.type(ImpersonationGrant)`SELECT ${columns} FROM impersonation_grants g WHERE g.id = ${id}`),

    /** Marks the grant expired if it is due and neither revoked nor marked yet; `pending` with its expiry (ms) when not due. */
    expireIfDue: async (id: string) => {
      const row = await db.maybeOne(sql.type(z.object({ due: z.boolean(), settled: z.boolean(), expiresAt: z.number() }))`
        SELECT expires_at <= now() AS due, (revoked_at IS NOT NULL OR expired_at IS NOT NULL) AS settled,
          (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresAt"
        FROM impersonation_grants WHERE id = ${id} FOR UPDATE`);
      if (!row || row.settled) return { outcome: 'settled' as const };
      if (!row.due) return { outcome: 'pending' as const, expiresAt: row.expiresAt };
      await db.query(sql.unsafe`UPDATE impersonation_grants SET expired_at = now() WHERE id = ${id}`);
      return { outcome: 'expired' as const };
    },

    tenantOf: (id: string) => db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT tenant_id AS id FROM impersonation_grants WHERE id = ${id}`),
  };
}
