import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Grant } from './rows.ts';

// A grant past its end (activation window or expiry) reads as expired, whether or not its process has recorded it.
const effectiveState = sql.fragment`CASE
    WHEN g.state = 'active' AND g.expires_at <= now() THEN 'expired'
    WHEN g.state = 'approved' AND g.activation_deadline <= now() THEN 'expired'
    ELSE g.state END`;

const columns = sql.fragment`
  g.id, g.policy_id AS "policyId", g.request_id AS "requestId", g.user_id AS "userId",
  CASE WHEN g.role_id IS NOT NULL THEN json_build_object('type', 'role', 'roleId', g.role_id, 'resources', g.resources)
    ELSE json_build_object('type', 'group', 'groupId', g.group_id) END AS target,
  ${effectiveState} AS state, g.duration_seconds AS "durationSeconds", g.activation_deadline AS "activationDeadline",
  g.activated_at AS "activatedAt", g.expires_at AS "expiresAt", g.revoked_at AS "revokedAt", g.revoke_reason AS "revokeReason",
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

export interface GrantFilter {
  state?: z.infer<typeof Grant>['state'] | undefined;
  userId?: string | undefined;
  policyId?: string | undefined;
}

const ms = (column: ReturnType<typeof sql.fragment>) => sql.fragment`(extract(epoch FROM ${column}) * 1000)::float8`;
const Settled = z.object({ state: z.string(), due: z.boolean(), until: z.number().nullable() });

/** Queries of one environment's grants: every statement is bound to `environmentId`. */
export function createGrantQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findGrant: (id: string) => db.maybeOne(sql.type(Grant)`SELECT ${columns} FROM elevate_grants g WHERE g.environment_id = ${environmentId} AND g.id = ${id}`),

    findGrants: (f: GrantFilter, page: PageRequest) => {
      const where = [
        sql.fragment`g.environment_id = ${environmentId}`,
        f.state !== undefined && sql.fragment`${effectiveState} = ${f.state}`,
        f.userId !== undefined && sql.fragment`g.user_id = ${f.userId}`,
        f.policyId !== undefined && sql.fragment`g.policy_id = ${f.policyId}`,
      ].filter((w) => w !== false);
      return selectPage(
        db,
        Grant,
        sql.fragment`SELECT ${columns} FROM elevate_grants g WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`g.created_at, g.id`,
        page,
      );
    },

    lockGrant: (id: string) => db.query(sql.unsafe`SELECT 1 FROM elevate_grants WHERE environment_id = ${environmentId} AND id = ${id} FOR UPDATE`),

    insertGrant: (g: {
      policyId: string;
      requestId: string;
      userId: string;
      roleId: string | null;
      groupId: string | null;
      resources: unknown;
      durationSeconds: number;
      windowSeconds: number;
    }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO elevate_grants (environment_id, policy_id, request_id, user_id, role_id, group_id, resources, duration_seconds, activation_deadline)
        VALUES (${environmentId}, ${g.policyId}, ${g.requestId}, ${g.userId}, ${g.roleId}, ${g.groupId},
          ${g.resources ? sql.jsonb(g.resources as never) : null}, ${g.durationSeconds}, now() + ${g.windowSeconds} * interval '1 second')
        RETURNING id`),

    /**
     * Activates an approved grant from `startAt` (ISO, or now) for its duration. Whole milliseconds, as the API shows
     * them: a decision at the shown expiresAt is already a deny.
     */
    activate: (id: string, startAt: string | null) =>
      db.query(sql.unsafe`
        UPDATE elevate_grants SET state = 'active', activated_at = date_trunc('milliseconds', coalesce(${startAt}::timestamptz, now())),
          expires_at = date_trunc('milliseconds', coalesce(${startAt}::timestamptz, now())) + duration_seconds * interval '1 second', updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`),

    extend: (id: string, seconds: number) =>
      db.query(sql.unsafe`
        UPDATE elevate_grants SET expires_at = expires_at + ${seconds} * interval '1 second', duration_seconds = duration_seconds + ${seconds},
          updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`),

    revoke: (id: string, reason: string | null) =>
      db.query(sql.unsafe`
        UPDATE elevate_grants SET state = 'revoked', revoked_at = now(), revoke_reason = ${reason}, updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}

// unscoped: a grant's process acts on the grant it was started for, by id (its input carries no environment).
export function createGrantProcessQueries(db: CommonQueryMethods) {
  return {
    findGrantById: (id: string) => db.maybeOne(sql.type(Grant)`SELECT ${columns} FROM elevate_grants g WHERE g.id = ${id}`),

    environmentOf: (id: string) => db.oneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT environment_id AS id FROM elevate_grants WHERE id = ${id}`),

    /**
     * Expires an open grant whose end (activation deadline, or expiry once active) has come, locked. `expired` when it
     * did, `settled` when the grant is no longer open, else `waiting` with the end it waits for (ms).
     */
    expireIfDue: async (id: string): Promise<{ outcome: 'expired'; from: string } | { outcome: 'settled' } | { outcome: 'waiting'; until: number }> => {
      const row = await db.maybeOne(sql.type(Settled)`
        SELECT state, CASE WHEN state = 'active' THEN expires_at ELSE activation_deadline END <= now() AS due,
          ${ms(sql.fragment`CASE WHEN state = 'active' THEN expires_at ELSE activation_deadline END`)} AS until
        FROM elevate_grants WHERE id = ${id} FOR UPDATE`);
      if (!row || (row.state !== 'approved' && row.state !== 'active')) return { outcome: 'settled' };
      if (!row.due) return { outcome: 'waiting', until: row.until! };
      await db.query(sql.unsafe`UPDATE elevate_grants SET state = 'expired', updated_at = now() WHERE id = ${id}`);
      return { outcome: 'expired', from: row.state };
    },
  };
}
