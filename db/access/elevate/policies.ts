import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Policy, type PolicyTarget } from './rows.ts';

const columns = sql.fragment`
  p.id, p.name, p.description,
  CASE WHEN p.role_id IS NOT NULL THEN json_build_object('type', 'role', 'roleId', p.role_id, 'resources', p.resources)
    ELSE json_build_object('type', 'group', 'groupId', p.group_id) END AS target,
  json_build_object('userIds', p.eligible_user_ids, 'groupIds', p.eligible_group_ids) AS eligible,
  json_build_object('userIds', p.approver_user_ids, 'groupIds', p.approver_group_ids) AS approvers,
  p.approvals_required AS "approvalsRequired", p.auto_approve AS "autoApprove",
  p.max_duration_seconds AS "maxDurationSeconds", p.default_duration_seconds AS "defaultDurationSeconds",
  p.require_justification AS "requireJustification", p.ticket_pattern AS "ticketPattern",
  p.request_ttl_seconds AS "requestTtlSeconds", p.activation_window_seconds AS "activationWindowSeconds",
  p.reapprove_extensions AS "reapproveExtensions", p.notification_channel_ids AS "notificationChannelIds",
  p.escalation_channel_ids AS "escalationChannelIds", p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

/** Every stored field of a policy but its id and timestamps. */
export type PolicyFields = Omit<Policy, 'id' | 'createdAt' | 'updatedAt'>;

const uuids = (ids: string[]) => sql.array(ids, 'uuid');
const targetColumns = (t: PolicyTarget) =>
  t.type === 'role'
    ? { roleId: t.roleId, groupId: null, resources: t.resources ? sql.jsonb(t.resources as never) : null }
    : { roleId: null, groupId: t.groupId, resources: null };

/** Queries of one environment's elevate policies: every statement is bound to `environmentId`. */
export function createPolicyQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findPolicy: (id: string) =>
      db.maybeOne(sql.type(Policy)`SELECT ${columns} FROM elevate_policies p WHERE p.environment_id = ${environmentId} AND p.id = ${id}`),

    findPolicies: (page: PageRequest) =>
      selectPage(
        db,
        Policy,
        sql.fragment`SELECT ${columns} FROM elevate_policies p WHERE p.environment_id = ${environmentId}`,
        sql.fragment`p.created_at, p.id`,
        page,
      ),

    lockPolicy: (id: string) => db.query(sql.unsafe`SELECT 1 FROM elevate_policies WHERE environment_id = ${environmentId} AND id = ${id} FOR UPDATE`),

    /** `changedBy`: the directory user saving it (a user's token), remembered so it is never auto-approved by it. */
    insertPolicy: (p: PolicyFields, changedBy: string | null) => {
      const t = targetColumns(p.target);
      return db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO elevate_policies (environment_id, name, description, role_id, resources, group_id, eligible_user_ids, eligible_group_ids,
          approver_user_ids, approver_group_ids, approvals_required, auto_approve, max_duration_seconds, default_duration_seconds,
          require_justification, ticket_pattern, request_ttl_seconds, activation_window_seconds, reapprove_extensions,
          notification_channel_ids, escalation_channel_ids, changed_by)
        VALUES (${environmentId}, ${p.name}, ${p.description}, ${t.roleId}, ${t.resources}, ${t.groupId}, ${uuids(p.eligible.userIds)},
          ${uuids(p.eligible.groupIds)}, ${uuids(p.approvers.userIds)}, ${uuids(p.approvers.groupIds)}, ${p.approvalsRequired}, ${p.autoApprove},
          ${p.maxDurationSeconds}, ${p.defaultDurationSeconds}, ${p.requireJustification}, ${p.ticketPattern}, ${p.requestTtlSeconds},
          ${p.activationWindowSeconds}, ${p.reapproveExtensions}, ${uuids(p.notificationChannelIds)}, ${uuids(p.escalationChannelIds)},
          ${uuids(changedBy === null ? [] : [changedBy])})
        RETURNING id`);
    },

    updatePolicy: (id: string, p: PolicyFields, changedBy: string | null) => {
      const t = targetColumns(p.target);
      return db.query(sql.unsafe`
        UPDATE elevate_policies SET name = ${p.name}, description = ${p.description}, role_id = ${t.roleId}, resources = ${t.resources},
          group_id = ${t.groupId}, eligible_user_ids = ${uuids(p.eligible.userIds)}, eligible_group_ids = ${uuids(p.eligible.groupIds)},
          approver_user_ids = ${uuids(p.approvers.userIds)}, approver_group_ids = ${uuids(p.approvers.groupIds)},
          approvals_required = ${p.approvalsRequired}, auto_approve = ${p.autoApprove}, max_duration_seconds = ${p.maxDurationSeconds},
          default_duration_seconds = ${p.defaultDurationSeconds}, require_justification = ${p.requireJustification},
          ticket_pattern = ${p.ticketPattern}, request_ttl_seconds = ${p.requestTtlSeconds},
          activation_window_seconds = ${p.activationWindowSeconds}, reapprove_extensions = ${p.reapproveExtensions},
          notification_channel_ids = ${uuids(p.notificationChannelIds)}, escalation_channel_ids = ${uuids(p.escalationChannelIds)},
          changed_by = CASE WHEN ${changedBy}::uuid IS NULL OR ${changedBy}::uuid = ANY(changed_by) THEN changed_by
            ELSE array_append(changed_by, ${changedBy}::uuid) END,
          updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
    },

    /** Whether the directory user created or replaced the policy. */
    changedBy: (policyId: string, userId: string) =>
      db.exists(
        sql.type(
          z.object({ id: z.uuid() }),
        )`SELECT id FROM elevate_policies WHERE environment_id = ${environmentId} AND id = ${policyId} AND ${userId}::uuid = ANY(changed_by)`,
      ),

    deletePolicy: (id: string) => db.query(sql.unsafe`DELETE FROM elevate_policies WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** The ids among `ids` that are not users (or groups) of the environment. */
    missingSubjects: async (kind: 'user' | 'group', ids: string[]) => {
      if (ids.length === 0) return [];
      const table = kind === 'user' ? sql.identifier(['users']) : sql.identifier(['groups']);
      const found = await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT id FROM ${table} WHERE environment_id = ${environmentId} AND id = ANY(${uuids(ids)})`);
      return ids.filter((id) => !found.includes(id));
    },

    roleExists: (roleId: string) =>
      db.exists(sql.type(z.object({ id: z.uuid() }))`SELECT id FROM rbac_roles WHERE environment_id = ${environmentId} AND id = ${roleId}`),

    /** The ids among `ids` that are not notification channels of the environment or of its whole tenant (bound to no environment). */
    missingChannels: async (tenantId: string, ids: string[]) => {
      if (ids.length === 0) return [];
      const found = await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT id FROM notification_channels
        WHERE tenant_id = ${tenantId} AND (environment_id IS NULL OR environment_id = ${environmentId}) AND id = ANY(${uuids(ids)})`);
      return ids.filter((id) => !found.includes(id));
    },
  };
}
