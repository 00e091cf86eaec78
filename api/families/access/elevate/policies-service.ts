// Elevate policies: what may be requested (an RBAC role, optionally limited to instances, or membership of a
// directory group), by whom, for how long, and who approves.
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createPolicyQueries, type PolicyFields } from '../../../../db/access/elevate/policies.ts';
import type { Policy } from '../../../../db/access/elevate/rows.ts';
import { createResourceTypeQueries } from '../../../../db/access/rbac/resource-types.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { invalidField } from '../../../errors.ts';
import { found } from '../rbac/checks.ts';
import { checkAutoApproval, ticketRegExp } from './checks.ts';
import type { PolicyBody } from './schemas.ts';

type Db = Parameters<typeof createPolicyQueries>[0];
const EVENT_OF = {
  create: 'elevate.policy.created',
  update: 'elevate.policy.updated',
  delete: 'elevate.policy.deleted',
} as const satisfies Record<string, EventType>;

const change = (verb: keyof typeof EVENT_OF, policy: Policy, before: Policy | null): CallerChange => ({
  action: `elevate.policy.${verb}`,
  resource: { type: 'elevate_policy', id: policy.id },
  before,
  after: verb === 'delete' ? null : policy,
  event: { type: EVENT_OF[verb], data: { policy } },
});

/** The user saving a policy, remembered on it: a requester never has its own request auto-approved by a policy it changed. */
const changedBy = (caller: EnvironmentCaller) => (caller.principal.type === 'user' ? caller.principal.id : null);

function fieldsOf(body: PolicyBody): PolicyFields {
  const defaultDurationSeconds = body.defaultDurationSeconds ?? body.maxDurationSeconds;
  if (defaultDurationSeconds > body.maxDurationSeconds) throw invalidField('body.defaultDurationSeconds', 'must not exceed maxDurationSeconds');
  if (body.approvers.userIds.length + body.approvers.groupIds.length === 0 && body.autoApprove === null) {
    throw invalidField('body.approvers', 'must name at least one user or group when there is no autoApprove condition');
  }
  checkAutoApproval(body.autoApprove);
  if (body.ticketPattern !== null) ticketRegExp(body.ticketPattern);
  const target = body.target.type === 'role' ? { ...body.target, resources: body.target.resources ?? null } : body.target;
  return { ...body, target, defaultDurationSeconds };
}

/** 400 naming the first id that the environment's directory, RBAC model or channels (its own or the tenant's) do not hold. */
async function checkReferences(db: Db, caller: EnvironmentCaller, p: PolicyFields) {
  const env = caller.scope.environmentId;
  const queries = createPolicyQueries(db, env);
  if (p.target.type === 'role') {
    if (!(await queries.roleExists(p.target.roleId))) throw invalidField('body.target.roleId', 'is not a role of this environment');
    const resources = p.target.resources ?? [];
    const types = await createResourceTypeQueries(db, env).findTypeIds([...new Set(resources.map((r) => r.type))]);
    const i = resources.findIndex((r) => !types.has(r.type));
    if (i >= 0) throw invalidField(`body.target.resources.${i}.type`, 'is not a resource type of this environment');
  } else if ((await queries.missingSubjects('group', [p.target.groupId])).length > 0) {
    throw invalidField('body.target.groupId', 'is not a group of this environment');
  }
  for (const [path, kind, ids] of [
    ['eligible.userIds', 'user', p.eligible.userIds],
    ['eligible.groupIds', 'group', p.eligible.groupIds],
    ['approvers.userIds', 'user', p.approvers.userIds],
    ['approvers.groupIds', 'group', p.approvers.groupIds],
  ] as const) {
    const [missing] = await queries.missingSubjects(kind, ids);
    if (missing !== undefined) throw invalidField(`body.${path}.${ids.indexOf(missing)}`, `is not a ${kind} of this environment`);
  }
  for (const path of ['notificationChannelIds', 'escalationChannelIds'] as const) {
    const [missing] = await queries.missingChannels(caller.scope.tenant.id, p[path]);
    if (missing !== undefined) {
      throw invalidField(`body.${path}.${p[path].indexOf(missing)}`, 'is not a notification channel of this environment or of the whole tenant');
    }
  }
}

export function createPolicyService(pool: DatabasePool) {
  const find = (db: Db, caller: EnvironmentCaller, id: string) =>
    found(createPolicyQueries(db, caller.scope.environmentId).findPolicy(id), 'elevate_policy', id);

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('policies', query, (page) => createPolicyQueries(pool, caller.scope.environmentId).findPolicies(page)),

    create: (caller: EnvironmentCaller, body: PolicyBody) => {
      const fields = fieldsOf(body);
      return pool.transaction(async (trx) => {
        await checkReferences(trx, caller, fields);
        const id = await createPolicyQueries(trx, caller.scope.environmentId).insertPolicy(fields, changedBy(caller));
        const policy = await find(trx, caller, id);
        await record(trx, caller, change('create', policy, null));
        return policy;
      });
    },

    replace: (caller: EnvironmentCaller, id: string, body: PolicyBody) => {
      const fields = fieldsOf(body);
      return pool.transaction(async (trx) => {
        await createPolicyQueries(trx, caller.scope.environmentId).lockPolicy(id);
        const before = await find(trx, caller, id);
        await checkReferences(trx, caller, fields);
        await createPolicyQueries(trx, caller.scope.environmentId).updatePolicy(id, fields, changedBy(caller));
        const policy = await find(trx, caller, id);
        await record(trx, caller, change('update', policy, before));
        return policy;
      });
    },

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        await createPolicyQueries(trx, caller.scope.environmentId).deletePolicy(id);
        await record(trx, caller, change('delete', before, before));
        return before;
      }),
  };
}

export type PolicyService = ReturnType<typeof createPolicyService>;
