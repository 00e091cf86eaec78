// Grants made by approved requests: activated by the grantee within the activation window (now or from a later
// start), extended within the policy's maximum (or through a new request when the policy re-approves extensions),
// revoked by the grantee or an operator. Each change reaches AuthZEN decisions through the model NOTIFY trigger on
// the grant table, and the grant's process through a signal.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordGrant } from '../../../../db/access/elevate/changes.ts';
import { createGrantQueries, type GrantFilter } from '../../../../db/access/elevate/grants.ts';
import { createPolicyQueries } from '../../../../db/access/elevate/policies.ts';
import type { Grant } from '../../../../db/access/elevate/rows.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { ApiError, invalidField, notFound } from '../../../errors.ts';
import { actorOf, directoryUserOf } from './checks.ts';
import { openRequest } from './requests-service.ts';

const notInState = (grant: Grant, wanted: string) =>
  new ApiError(409, 'elevate.grant_not_' + wanted, `The grant is ${grant.state}, not ${wanted}.`, { details: [{ path: 'state', message: grant.state }] });

export function createGrantService(pool: DatabasePool) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const find = async (db: CommonQueryMethods, caller: EnvironmentCaller, id: string) => {
    const grant = await createGrantQueries(db, env(caller)).findGrant(id);
    if (!grant) throw notFound('elevate_grant', id);
    return grant;
  };
  /** Locks and reads the grant; a user caller must be its grantee (operators act on any). */
  const own = async (db: CommonQueryMethods, caller: EnvironmentCaller, id: string) => {
    await createGrantQueries(db, env(caller)).lockGrant(id);
    const grant = await find(db, caller, id);
    const self = await directoryUserOf(db, caller);
    if (self !== null && self !== grant.userId) throw new ApiError(403, 'elevate.not_grantee', 'Only the grantee (or an operator) acts on a grant.');
    return grant;
  };
  const signal = (db: CommonQueryMethods, id: string, payload: { until?: number; revoked?: boolean }) =>
    createProcessOutboxQueries(db).enqueueSignal({ kind: 'elevate-grant', entityId: id, topic: 'elevate-grant', payload });

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery & GrantFilter) =>
      listPage('grants', query, (page) => createGrantQueries(pool, env(caller)).findGrants(query, page)),

    activate: (caller: EnvironmentCaller, id: string, body: { startAt?: string | undefined }) =>
      pool.transaction(async (trx) => {
        const before = await own(trx, caller, id);
        if (before.state !== 'approved') throw notInState(before, 'approved');
        if (body.startAt !== undefined) {
          const at = Date.parse(body.startAt);
          if (at < Date.now()) throw invalidField('body.startAt', 'must not be in the past');
          if (at >= Date.parse(before.activationDeadline))
            throw invalidField('body.startAt', `must be before the activation deadline ${before.activationDeadline}`);
        }
        const grants = createGrantQueries(trx, env(caller));
        await grants.activate(id, body.startAt ?? null);
        const grant = (await grants.findGrant(id))!;
        await recordGrant(trx, actorOf(caller), env(caller), 'activated', grant, before);
        await signal(trx, id, { until: Date.parse(grant.expiresAt!) });
        return grant;
      }),

    extend: (caller: EnvironmentCaller, id: string, body: { durationSeconds: number }) =>
      pool.transaction(async (trx) => {
        const before = await own(trx, caller, id);
        if (before.state !== 'active') throw notInState(before, 'active');
        const policy = (await createPolicyQueries(trx, env(caller)).findPolicy(before.policyId))!;
        const total = (Date.parse(before.expiresAt!) - Date.parse(before.activatedAt!)) / 1000 + body.durationSeconds;
        if (total > policy.maxDurationSeconds) {
          const message = `must keep the grant within the policy's maximum of ${policy.maxDurationSeconds} seconds from its activation`;
          throw new ApiError(400, 'elevate.duration_exceeds_maximum', `Invalid request: body.durationSeconds ${message}.`, {
            details: [{ path: 'body.durationSeconds', message }],
          });
        }
        if (policy.reapproveExtensions) {
          const scope = { environmentId: env(caller), tenantId: caller.scope.tenant.id };
          const ask = { requesterId: before.userId, durationSeconds: body.durationSeconds, justification: null, ticketId: null, extendsGrantId: id };
          // The extension is a request of its own; the policy's justification and ticket rules apply to new requests only.
          const { request } = await openRequest(trx, actorOf(caller), scope, { ...policy, requireJustification: false, ticketPattern: null }, ask);
          return { grant: (await createGrantQueries(trx, env(caller)).findGrant(id))!, reapprovalRequired: true, request };
        }
        const grants = createGrantQueries(trx, env(caller));
        await grants.extend(id, body.durationSeconds);
        const grant = (await grants.findGrant(id))!;
        await recordGrant(trx, actorOf(caller), env(caller), 'extended', grant, before);
        await signal(trx, id, { until: Date.parse(grant.expiresAt!) });
        return { grant, reapprovalRequired: false };
      }),

    revoke: (caller: EnvironmentCaller, id: string, body: { reason?: string | undefined }) =>
      pool.transaction(async (trx) => {
        const before = await own(trx, caller, id);
        if (before.state !== 'approved' && before.state !== 'active') throw notInState(before, 'open');
        const grants = createGrantQueries(trx, env(caller));
        await grants.revoke(id, body.reason ?? null);
        const grant = (await grants.findGrant(id))!;
        await recordGrant(trx, actorOf(caller), env(caller), 'revoked', grant, before);
        await signal(trx, id, { revoked: true });
        return grant;
      }),
  };
}

export type GrantService = ReturnType<typeof createGrantService>;
