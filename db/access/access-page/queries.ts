// The access-requests page's reads, bound to one environment (every statement names it). States read as the elevate
// API shows them: a pending request past its expiry is expired, and so is a grant past its end, whether or not its
// process has recorded it yet.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { EligiblePolicy, HeldGrant, OwnRequest, PageUser, WaitingRequest } from './rows.ts';

const RECENT = 20;

const requestState = sql.fragment`CASE WHEN r.state = 'pending' AND r.expires_at <= now() THEN 'expired' ELSE r.state END`;
const grantState = sql.fragment`CASE
    WHEN g.state = 'active' AND g.expires_at <= now() THEN 'expired'
    WHEN g.state = 'approved' AND g.activation_deadline <= now() THEN 'expired'
    ELSE g.state END`;

export function createAccessPageQueries(db: CommonQueryMethods, environmentId: string) {
  /** What a policy (alias p) grants: `role <key>` (with its instances) or `group <name>`. */
  const target = sql.fragment`CASE WHEN p.role_id IS NOT NULL THEN
      (SELECT 'role ' || coalesce(ro.name, ro.key) FROM rbac_roles ro WHERE ro.environment_id = ${environmentId} AND ro.id = p.role_id)
      || coalesce(' on ' || (SELECT string_agg(x->>'type' || ' ' || (x->>'id'), ', ') FROM jsonb_array_elements(p.resources) x), '')
    ELSE (SELECT 'group ' || gr.name FROM groups gr WHERE gr.environment_id = ${environmentId} AND gr.id = p.group_id) END`;
  /** Whether `userId` is among a policy's `<kind>` users or a member of its `<kind>` groups. */
  const among = (kind: 'eligible' | 'approver', userId: string) => {
    const users = sql.identifier(['p', `${kind}_user_ids`]);
    const groups = sql.identifier(['p', `${kind}_group_ids`]);
    return sql.fragment`(${userId}::uuid = ANY(${users}) OR EXISTS (SELECT 1 FROM group_members m
      WHERE m.environment_id = ${environmentId} AND m.user_id = ${userId} AND m.group_id = ANY(${groups})))`;
  };
  const person = (column: ReturnType<typeof sql.fragment>) =>
    sql.fragment`(SELECT coalesce(u.display_name, u.user_name) FROM users u WHERE u.environment_id = ${environmentId} AND u.id = ${column})`;

  return {
    findUser: (userId: string) =>
      db.maybeOne(sql.type(PageUser)`
        SELECT id, user_name AS "userName", display_name AS "displayName", active FROM users WHERE environment_id = ${environmentId} AND id = ${userId}`),

    eligiblePolicies: (userId: string) =>
      db.any(sql.type(EligiblePolicy)`
        SELECT p.id, p.name, p.description, ${target} AS target, p.max_duration_seconds AS "maxDurationSeconds",
          p.default_duration_seconds AS "defaultDurationSeconds", p.require_justification AS "requireJustification",
          p.ticket_pattern AS "ticketPattern", p.approvals_required AS "approvalsRequired"
        FROM elevate_policies p WHERE p.environment_id = ${environmentId} AND ${among('eligible', userId)} ORDER BY p.name, p.id`),

    /** The user's most recent requests, each with its grant. */
    ownRequests: (userId: string) =>
      db.any(sql.type(OwnRequest)`
        SELECT r.id, p.name AS "policyName", ${target} AS target, ${requestState} AS state, r.duration_seconds AS "durationSeconds",
          r.justification, r.ticket_id AS "ticketId", r.expires_at AS "expiresAt", r.created_at AS "createdAt",
          (SELECT coalesce(array_agg(d.comment ORDER BY d.created_at), '{}') FROM elevate_decisions d
            WHERE d.environment_id = ${environmentId} AND d.request_id = r.id AND d.comment IS NOT NULL) AS comments,
          g.id AS "grantId", CASE WHEN g.id IS NULL THEN NULL ELSE ${grantState} END AS "grantState",
          g.activation_deadline AS "activationDeadline", g.expires_at AS "grantExpiresAt"
        FROM elevate_requests r
        JOIN elevate_policies p ON p.environment_id = ${environmentId} AND p.id = r.policy_id
        LEFT JOIN elevate_grants g ON g.environment_id = ${environmentId} AND g.request_id = r.id
        WHERE r.environment_id = ${environmentId} AND r.requester_id = ${userId}
        ORDER BY r.created_at DESC, r.id LIMIT ${RECENT}`),

    /** Pending requests of the policies the user approves that it has not decided yet (never its own). */
    waitingFor: (userId: string) =>
      db.any(sql.type(WaitingRequest)`
        SELECT r.id, p.name AS "policyName", ${target} AS target, ${person(sql.fragment`r.requester_id`)} AS requester,
          r.duration_seconds AS "durationSeconds", r.justification, r.ticket_id AS "ticketId",
          (SELECT count(*) FROM elevate_decisions d WHERE d.environment_id = ${environmentId} AND d.request_id = r.id AND d.decision = 'approve')::int AS approvals,
          p.approvals_required AS "approvalsRequired", r.expires_at AS "expiresAt", r.created_at AS "createdAt"
        FROM elevate_requests r JOIN elevate_policies p ON p.environment_id = ${environmentId} AND p.id = r.policy_id
        WHERE r.environment_id = ${environmentId} AND r.state = 'pending' AND r.expires_at > now() AND r.requester_id <> ${userId}
          AND ${among('approver', userId)}
          AND NOT EXISTS (SELECT 1 FROM elevate_decisions d WHERE d.environment_id = ${environmentId} AND d.request_id = r.id AND d.approver_id = ${userId})
        ORDER BY r.created_at, r.id LIMIT 200`),

    /** Whether the user approves under any policy (the page then shows the approver's sections). */
    approvesAny: (userId: string) =>
      db.exists(sql.type(z.object({ id: z.uuid() }))`
        SELECT p.id FROM elevate_policies p WHERE p.environment_id = ${environmentId} AND ${among('approver', userId)}`),

    /** Grants in force or waiting for activation under the policies the user approves. */
    heldUnder: (userId: string) =>
      db.any(sql.type(HeldGrant)`
        SELECT g.id, ${person(sql.fragment`g.user_id`)} AS holder, p.name AS "policyName", ${target} AS target, ${grantState} AS state,
          g.activation_deadline AS "activationDeadline", g.expires_at AS "expiresAt"
        FROM elevate_grants g JOIN elevate_policies p ON p.environment_id = ${environmentId} AND p.id = g.policy_id
        WHERE g.environment_id = ${environmentId} AND ${among('approver', userId)}
          AND ((g.state = 'active' AND g.expires_at > now()) OR (g.state = 'approved' AND g.activation_deadline > now()))
        ORDER BY coalesce(g.expires_at, g.activation_deadline), g.id LIMIT 200`),
  };
}
