// What an approval does, whoever approves (approvers, the auto-approval condition): settles the request and makes
// its grant (starting the grant's process), or, for an extension request, extends the active grant.
import type { CommonQueryMethods } from 'slonik';
import { recordGrant, recordRequest, type ElevateActor } from '../../../../db/access/elevate/changes.ts';
import { createGrantQueries } from '../../../../db/access/elevate/grants.ts';
import { createRequestQueries } from '../../../../db/access/elevate/requests.ts';
import type { AccessRequest, Grant, Policy } from '../../../../db/access/elevate/rows.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';

export async function approve(
  db: CommonQueryMethods,
  who: ElevateActor,
  scope: { environmentId: string; tenantId: string },
  before: AccessRequest,
  policy: Policy,
  auto: boolean,
): Promise<{ request: AccessRequest; grant: Grant | null }> {
  const requests = createRequestQueries(db, scope.environmentId);
  const grants = createGrantQueries(db, scope.environmentId);
  const outbox = createProcessOutboxQueries(db);
  await requests.settle(before.id, 'approved', auto);
  let grant: Grant | null = null;
  if (before.extendsGrantId) {
    await grants.lockGrant(before.extendsGrantId);
    const current = await grants.findGrant(before.extendsGrantId);
    // A grant that ended while the extension waited stays ended.
    if (current?.state === 'active') {
      await grants.extend(current.id, before.durationSeconds);
      grant = (await grants.findGrant(current.id))!;
      await recordGrant(db, who, scope.environmentId, 'extended', grant, current);
      await outbox.enqueueSignal({ kind: 'elevate-grant', entityId: grant.id, topic: 'elevate-grant', payload: { until: Date.parse(grant.expiresAt!) } });
    }
  } else {
    const target = policy.target;
    const id = await grants.insertGrant({
      policyId: policy.id,
      requestId: before.id,
      userId: before.requesterId,
      roleId: target.type === 'role' ? target.roleId : null,
      groupId: target.type === 'group' ? target.groupId : null,
      resources: target.type === 'role' ? target.resources : null,
      durationSeconds: before.durationSeconds,
      windowSeconds: policy.activationWindowSeconds,
    });
    grant = (await grants.findGrant(id))!;
    await recordGrant(db, who, scope.environmentId, 'created', grant, null);
    await outbox.enqueueStart({
      kind: 'elevate-grant',
      entityId: id,
      tenantId: scope.tenantId,
      input: { grantId: id, until: Date.parse(grant.activationDeadline) },
    });
  }
  const request = (await requests.findRequest(before.id))!;
  await recordRequest(db, who, scope.environmentId, 'approved', request, before);
  return { request, grant };
}
