import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { AccessRequest } from './rows.ts';

const iso = (column: ReturnType<typeof sql.fragment>) => sql.fragment`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// A pending request past its expiry reads as expired, whether or not its process has recorded it yet.
const columns = sql.fragment`
  r.id, r.policy_id AS "policyId", r.requester_id AS "requesterId", r.duration_seconds AS "durationSeconds", r.justification,
  r.ticket_id AS "ticketId",
  CASE WHEN r.state = 'pending' AND r.expires_at <= now() THEN 'expired' ELSE r.state END AS state,
  r.extends_grant_id AS "extendsGrantId", r.auto_approved AS "autoApproved",
  (SELECT coalesce(json_agg(json_build_object('approverId', d.approver_id, 'decision', d.decision, 'comment', d.comment,
      'createdAt', ${iso(sql.fragment`d.created_at`)}) ORDER BY d.created_at, d.id), '[]')
    FROM elevate_decisions d WHERE d.request_id = r.id) AS decisions,
  (SELECT g.id FROM elevate_grants g WHERE g.request_id = r.id) AS "grantId",
  r.expires_at AS "expiresAt", r.decided_at AS "decidedAt", r.created_at AS "createdAt", r.updated_at AS "updatedAt"`;

export interface RequestFilter {
  state?: z.infer<typeof AccessRequest>['state'] | undefined;
  requesterId?: string | undefined;
  policyId?: string | undefined;
}

/** Queries of one environment's access requests: every statement is bound to `environmentId`. */
export function createRequestQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findRequest: (id: string) =>
      db.maybeOne(sql.type(AccessRequest)`SELECT ${columns} FROM elevate_requests r WHERE r.environment_id = ${environmentId} AND r.id = ${id}`),

    findRequests: (f: RequestFilter, page: PageRequest) => {
      const state =
        f.state === undefined
          ? false
          : f.state === 'expired'
            ? sql.fragment`(r.state = 'expired' OR (r.state = 'pending' AND r.expires_at <= now()))`
            : f.state === 'pending'
              ? sql.fragment`r.state = 'pending' AND r.expires_at > now()`
              : sql.fragment`r.state = ${f.state}`;
      const where = [
        sql.fragment`r.environment_id = ${environmentId}`,
        state,
        f.requesterId !== undefined && sql.fragment`r.requester_id = ${f.requesterId}`,
        f.policyId !== undefined && sql.fragment`r.policy_id = ${f.policyId}`,
      ].filter((w) => w !== false);
      return selectPage(
        db,
        AccessRequest,
        sql.fragment`SELECT ${columns} FROM elevate_requests r WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`r.created_at, r.id`,
        page,
      );
    },

    lockRequest: (id: string) => db.query(sql.unsafe`SELECT 1 FROM elevate_requests WHERE environment_id = ${environmentId} AND id = ${id} FOR UPDATE`),

    insertRequest: (r: {
      policyId: string;
      requesterId: string;
      durationSeconds: number;
      justification: string | null;
      ticketId: string | null;
      ttlSeconds: number;
      extendsGrantId: string | null;
    }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO elevate_requests (environment_id, policy_id, requester_id, duration_seconds, justification, ticket_id, extends_grant_id, expires_at)
        VALUES (${environmentId}, ${r.policyId}, ${r.requesterId}, ${r.durationSeconds}, ${r.justification}, ${r.ticketId}, ${r.extendsGrantId},
          now() + ${r.ttlSeconds} * interval '1 second')
        RETURNING id`),

    insertDecision: (d: { requestId: string; approverId: string | null; decision: 'approve' | 'deny'; comment: string | null }) =>
      db.query(sql.unsafe`
        INSERT INTO elevate_decisions (request_id, environment_id, approver_id, decision, comment)
        VALUES (${d.requestId}, ${environmentId}, ${d.approverId}, ${d.decision}, ${d.comment})`),

    /** Settles a pending request (the caller holds its lock and checked it is pending). */
    settle: (id: string, state: 'approved' | 'denied' | 'cancelled' | 'expired', autoApproved = false) =>
      db.query(sql.unsafe`
        UPDATE elevate_requests SET state = ${state}, auto_approved = ${autoApproved}, decided_at = now(), updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Whether a user is one of `userIds` or a member of one of `groupIds` (groups of the environment). */
    isAmong: (userId: string, userIds: string[], groupIds: string[]) =>
      db.oneFirst(sql.type(z.object({ among: z.boolean() }))`
        SELECT ${userId}::uuid = ANY(${sql.array(userIds, 'uuid')})
          OR EXISTS (SELECT 1 FROM group_members m WHERE m.environment_id = ${environmentId} AND m.user_id = ${userId}
            AND m.group_id = ANY(${sql.array(groupIds, 'uuid')})) AS among`),
  };
}

// unscoped: a request's process acts on the request it was started for, by id (its input carries no environment).
export function createRequestProcessQueries(db: CommonQueryMethods) {
  return {
    findRequestById: (id: string) => db.maybeOne(sql.type(AccessRequest)`SELECT ${columns} FROM elevate_requests r WHERE r.id = ${id}`),

    environmentOf: (id: string) => db.oneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT environment_id AS id FROM elevate_requests WHERE id = ${id}`),

    lockRequest: (id: string) => db.query(sql.unsafe`SELECT 1 FROM elevate_requests WHERE id = ${id} FOR UPDATE`),

    /** A pending request due for expiry, locked: whether it was (then it is expired), else its expiry (ms) or null once settled. */
    expireIfDue: async (id: string): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'pending'; expiresAt: number }> => {
      const row = await db.maybeOne(sql.type(z.object({ state: z.string(), due: z.boolean(), expiresAt: z.number() }))`
        SELECT state, expires_at <= now() AS due, (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresAt"
        FROM elevate_requests WHERE id = ${id} FOR UPDATE`);
      if (!row || row.state !== 'pending') return { outcome: 'settled' };
      if (!row.due) return { outcome: 'pending', expiresAt: row.expiresAt };
      await db.query(sql.unsafe`UPDATE elevate_requests SET state = 'expired', decided_at = now(), updated_at = now() WHERE id = ${id}`);
      return { outcome: 'expired' };
    },
  };
}

const Requester = z.object({
  id: z.uuid(),
  userName: z.string(),
  email: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  groups: z.array(z.string()),
});

/** A directory user of the environment as an auto-approval condition sees it, or null. */
export const findRequester = (db: CommonQueryMethods, environmentId: string, userId: string) =>
  db.maybeOne(sql.type(Requester)`
    SELECT u.id, u.user_name AS "userName", (SELECT min(e.email) FROM user_emails e WHERE e.user_id = u.id) AS email, u.attributes,
      ARRAY(SELECT g.name FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = u.id ORDER BY g.name) AS groups
    FROM users u WHERE u.environment_id = ${environmentId} AND u.id = ${userId}`);

/** The management scopes a directory user holds (what its tokens may carry at most). */
export const managementScopesOf = (db: CommonQueryMethods, environmentId: string, userId: string) =>
  db.oneFirst(sql.type(z.object({ scopes: z.array(z.string()) }))`
    SELECT management_scopes AS scopes FROM users WHERE environment_id = ${environmentId} AND id = ${userId}`);

/** The tenant an environment belongs to. */
export const tenantOfEnvironment = (db: CommonQueryMethods, environmentId: string) =>
  db.oneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT tenant_id AS id FROM environments WHERE id = ${environmentId}`);
