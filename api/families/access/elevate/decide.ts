// Deciding an access request: the one function every way of deciding calls (the API's approve and deny routes,
// and chat approvals). Refusals name the rule: the requester never approves its own request, only an approver of
// the policy decides, a request is decided once, and each approver decides once.
import { UniqueIntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import { recordRequest, type ElevateActor } from '../../../../db/access/elevate/changes.ts';
import { createPolicyQueries } from '../../../../db/access/elevate/policies.ts';
import { createRequestQueries, tenantOfEnvironment } from '../../../../db/access/elevate/requests.ts';
import type { AccessRequest, Grant } from '../../../../db/access/elevate/rows.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { ApiError, notFound } from '../../../errors.ts';
import { approve } from './issue.ts';

export interface Decision {
  environmentId: string;
  requestId: string;
  /** The directory user deciding (an approver of the policy, never the requester). */
  approverUserId: string;
  decision: 'approve' | 'deny';
  comment?: string | null | undefined;
}

export const alreadyDecided = (state: string) =>
  new ApiError(409, 'elevate.already_decided', `The request is already ${state}.`, { details: [{ path: 'state', message: state }] });

/** Records a decision; the request is approved (and its grant made) once it has the approvals its policy requires, denied at the first deny. */
export async function decideRequest(pool: DatabasePool, who: ElevateActor, d: Decision): Promise<{ request: AccessRequest; grant: Grant | null }> {
  return pool.transaction(async (trx) => {
    const requests = createRequestQueries(trx, d.environmentId);
    await requests.lockRequest(d.requestId);
    const before = await requests.findRequest(d.requestId);
    if (!before) throw notFound('elevate_request', d.requestId);
    if (before.state !== 'pending') throw alreadyDecided(before.state);
    if (d.approverUserId === before.requesterId) throw new ApiError(403, 'elevate.self_approval', 'A requester never decides on its own request.');
    const policy = (await createPolicyQueries(trx, d.environmentId).findPolicy(before.policyId))!;
    const isUser = (await createPolicyQueries(trx, d.environmentId).missingSubjects('user', [d.approverUserId])).length === 0;
    if (!isUser || !(await requests.isAmong(d.approverUserId, policy.approvers.userIds, policy.approvers.groupIds))) {
      throw new ApiError(403, 'elevate.not_an_approver', `The user is not an approver of the policy "${policy.name}".`);
    }
    try {
      await requests.insertDecision({
        requestId: d.requestId,
        approverId: d.approverUserId,
        decision: d.decision,
        comment: d.comment ?? null,
      });
    } catch (error) {
      if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'elevate_decisions__request_approver')
        throw alreadyDecided(`decided by this approver (${before.state})`);
      throw error;
    }
    const scope = { environmentId: d.environmentId, tenantId: await tenantOfEnvironment(trx, d.environmentId) };
    const settled = () =>
      createProcessOutboxQueries(trx).enqueueSignal({ kind: 'elevate-request', entityId: d.requestId, topic: 'elevate-request', payload: { settled: true } });
    if (d.decision === 'deny') {
      await requests.settle(d.requestId, 'denied');
      const request = (await requests.findRequest(d.requestId))!;
      await recordRequest(trx, who, d.environmentId, 'denied', request, before);
      await settled();
      return { request, grant: null };
    }
    const withDecision = (await requests.findRequest(d.requestId))!;
    const approvals = withDecision.decisions.filter((x) => x.decision === 'approve').length;
    if (approvals < policy.approvalsRequired) {
      await recordRequest(trx, who, d.environmentId, 'approval_recorded', withDecision, before);
      return { request: withDecision, grant: null };
    }
    const result = await approve(trx, who, scope, withDecision, policy, false);
    await settled();
    return result;
  });
}
