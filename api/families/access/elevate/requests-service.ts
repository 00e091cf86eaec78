// Access requests: a directory user (or an operator on its behalf) asks for a policy's target for a while, with a
// justification; the policy's rules are checked at once, then approvers decide (decide.ts) unless the policy's
// auto-approval condition holds.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordRequest, type ElevateActor } from '../../../../db/access/elevate/changes.ts';
import { createPolicyQueries } from '../../../../db/access/elevate/policies.ts';
import { createRequestQueries, findRequester, managementScopesOf, type RequestFilter } from '../../../../db/access/elevate/requests.ts';
import type { AccessRequest, Grant, Policy } from '../../../../db/access/elevate/rows.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { compileAutoApproval } from '../../../../lib/authz/auto-approval.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { grants } from '../../../scopes.ts';
import { ApiError, invalidField, notFound } from '../../../errors.ts';
import { actingUser, actorOf, directoryUserOf, ticketRegExp } from './checks.ts';
import { alreadyDecided, decideRequest } from './decide.ts';
import { approve } from './issue.ts';
import type { CreateRequestBody } from './schemas.ts';

const refused = (status: number, code: string, message: string, path?: string) =>
  new ApiError(status, code, message, path ? { details: [{ path, message }] } : {});

export interface Ask {
  requesterId: string;
  durationSeconds: number;
  justification: string | null;
  ticketId: string | null;
  extendsGrantId: string | null;
}

/** The policy's rules for a request: eligibility, maximum duration, justification, ticket pattern. */
async function checkAsk(db: CommonQueryMethods, environmentId: string, policy: Policy, ask: Ask) {
  if (!(await createRequestQueries(db, environmentId).isAmong(ask.requesterId, policy.eligible.userIds, policy.eligible.groupIds))) {
    throw refused(403, 'elevate.not_eligible', `The user is not eligible under the policy "${policy.name}".`);
  }
  if (ask.durationSeconds > policy.maxDurationSeconds) {
    throw refused(
      400,
      'elevate.duration_exceeds_maximum',
      `must be at most ${policy.maxDurationSeconds} seconds (the policy's maximum)`,
      'body.durationSeconds',
    );
  }
  if (policy.requireJustification && !ask.justification?.trim()) {
    throw refused(400, 'elevate.justification_required', `The policy "${policy.name}" requires a justification.`, 'body.justification');
  }
  if (policy.ticketPattern !== null) {
    const value = ask.ticketId ?? ask.justification ?? '';
    if (!ticketRegExp(policy.ticketPattern, 'policy.ticketPattern').test(value)) {
      throw refused(
        400,
        'elevate.ticket_mismatch',
        `must match the policy's ticket pattern ${policy.ticketPattern}`,
        ask.ticketId === null ? 'body.justification' : 'body.ticketId',
      );
    }
  }
}

/**
 * Whether approving the request by the policy's condition would be the requester approving itself: it created or
 * replaced the policy, or it may administer policies (its management scopes grant elevate-policies:write).
 */
async function selfApproving(db: CommonQueryMethods, environmentId: string, policy: Policy, requesterId: string) {
  if (await createPolicyQueries(db, environmentId).changedBy(policy.id, requesterId)) return true;
  return grants(await managementScopesOf(db, environmentId, requesterId), 'elevate-policies:write');
}

/**
 * Opens a request (checked by the caller's checkAsk): approved at once when the auto-approval condition holds and
 * the requester is not approving itself (selfApproving), else pending with its process (reminders, expiry).
 */
export async function openRequest(
  db: CommonQueryMethods,
  who: ElevateActor,
  scope: { environmentId: string; tenantId: string },
  policy: Policy,
  ask: Ask,
): Promise<{ request: AccessRequest; grant: Grant | null }> {
  await checkAsk(db, scope.environmentId, policy, ask);
  const requests = createRequestQueries(db, scope.environmentId);
  const id = await requests.insertRequest({ ...ask, policyId: policy.id, ttlSeconds: policy.requestTtlSeconds });
  const request = (await requests.findRequest(id))!;
  await recordRequest(db, who, scope.environmentId, 'created', request, null);
  if (policy.autoApprove !== null && !(await selfApproving(db, scope.environmentId, policy, ask.requesterId))) {
    const compiled = compileAutoApproval(policy.autoApprove);
    const requester = await findRequester(db, scope.environmentId, ask.requesterId);
    const input = { requester: requester!, request: { durationSeconds: ask.durationSeconds, justification: ask.justification, ticketId: ask.ticketId } };
    if (compiled.ok && compiled.holds(input)) return approve(db, who, scope, request, policy, true);
  }
  await createProcessOutboxQueries(db).enqueueStart({
    kind: 'elevate-request',
    entityId: id,
    tenantId: scope.tenantId,
    input: {
      requestId: id,
      createdAt: Date.parse(request.createdAt),
      expiresAt: Date.parse(request.expiresAt),
      escalate: policy.escalationChannelIds.length > 0,
    },
  });
  return { request, grant: null };
}

/** Told of each request a caller opened that waits for a decision (the elevate notice to its approvers). */
export type OnPending = (environmentId: string, request: AccessRequest, policy: Policy) => Promise<void>;

export function createRequestService(pool: DatabasePool, onPending: OnPending = async () => {}) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const find = async (db: CommonQueryMethods, caller: EnvironmentCaller, id: string) => {
    const request = await createRequestQueries(db, env(caller)).findRequest(id);
    if (!request) throw notFound('elevate_request', id);
    return request;
  };
  const decide = async (
    caller: EnvironmentCaller,
    id: string,
    decision: 'approve' | 'deny',
    body: { comment?: string | undefined; approverId?: string | undefined },
  ) =>
    decideRequest(pool, actorOf(caller), {
      environmentId: env(caller),
      requestId: id,
      approverUserId: await actingUser(pool, caller, body.approverId, 'body.approverId'),
      decision,
      comment: body.comment ?? null,
    });

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery & RequestFilter) =>
      listPage('requests', query, (page) => createRequestQueries(pool, env(caller)).findRequests(query, page)),

    create: async (caller: EnvironmentCaller, body: CreateRequestBody) => {
      const requesterId = await actingUser(pool, caller, body.requesterId, 'body.requesterId');
      const { policy, ...opened } = await pool.transaction(async (trx) => {
        const policy = await createPolicyQueries(trx, env(caller)).findPolicy(body.policyId);
        if (!policy) throw invalidField('body.policyId', 'is not a policy of this environment');
        if ((await createPolicyQueries(trx, env(caller)).missingSubjects('user', [requesterId])).length > 0) {
          throw invalidField('body.requesterId', 'is not a user of this environment');
        }
        const ask = {
          requesterId,
          durationSeconds: body.durationSeconds ?? policy.defaultDurationSeconds,
          justification: body.justification ?? null,
          ticketId: body.ticketId ?? null,
          extendsGrantId: null,
        };
        return { policy, ...(await openRequest(trx, actorOf(caller), { environmentId: env(caller), tenantId: caller.scope.tenant.id }, policy, ask)) };
      });
      if (!opened.grant) await onPending(env(caller), opened.request, policy);
      return opened;
    },

    approve: (caller: EnvironmentCaller, id: string, body: { comment?: string | undefined; approverId?: string | undefined }) =>
      decide(caller, id, 'approve', body),
    deny: (caller: EnvironmentCaller, id: string, body: { comment?: string | undefined; approverId?: string | undefined }) => decide(caller, id, 'deny', body),

    /** Withdraws a pending request: the requester itself, or an operator. */
    cancel: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const requests = createRequestQueries(trx, env(caller));
        await requests.lockRequest(id);
        const before = await find(trx, caller, id);
        const self = await directoryUserOf(trx, caller);
        if (self !== null && self !== before.requesterId) throw new ApiError(403, 'elevate.not_requester', 'Only the requester cancels its request.');
        if (before.state !== 'pending') throw alreadyDecided(before.state);
        await requests.settle(id, 'cancelled');
        const request = (await requests.findRequest(id))!;
        await recordRequest(trx, actorOf(caller), env(caller), 'cancelled', request, before);
        await createProcessOutboxQueries(trx).enqueueSignal({ kind: 'elevate-request', entityId: id, topic: 'elevate-request', payload: { settled: true } });
        return { request, grant: null };
      }),
  };
}

export type RequestService = ReturnType<typeof createRequestService>;
