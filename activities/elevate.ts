// The activities of the elevate processes: remind or escalate a pending access request, expire a request, expire a
// grant. Each locks and re-reads its row and acts only if still due, recording the event once (a retry, a replay or a
// second process finds the row settled).
import type { DatabasePool } from 'slonik';
import { recordGrant, recordRequest, systemActor } from '../db/access/elevate/changes.ts';
import { createGrantProcessQueries } from '../db/access/elevate/grants.ts';
import { createRequestProcessQueries } from '../db/access/elevate/requests.ts';
import type { Activities } from '../workflows/activities.ts';

export interface ElevateDeps {
  pool: DatabasePool;
}

type ElevateActivities = Pick<Activities, 'nudgeElevateRequest' | 'expireElevateRequest' | 'expireElevateGrant'>;

export function createElevateActivities(deps: ElevateDeps): ElevateActivities {
  return {
    nudgeElevateRequest: ({ requestId, kind }) =>
      deps.pool.transaction(async (trx) => {
        const requests = createRequestProcessQueries(trx);
        await requests.lockRequest(requestId);
        const request = await requests.findRequestById(requestId);
        if (!request || request.state !== 'pending') return { outcome: 'settled' as const };
        const environmentId = await requests.environmentOf(requestId);
        await recordRequest(trx, systemActor('elevate-request'), environmentId, kind, request, request);
        return { outcome: 'sent' as const };
      }),

    expireElevateRequest: ({ requestId }) =>
      deps.pool.transaction(async (trx) => {
        const requests = createRequestProcessQueries(trx);
        const before = await requests.findRequestById(requestId);
        const result = await requests.expireIfDue(requestId);
        if (result.outcome !== 'expired') return result;
        const request = (await requests.findRequestById(requestId))!;
        await recordRequest(trx, systemActor('elevate-request'), await requests.environmentOf(requestId), 'expired', request, { ...before!, state: 'pending' });
        return result;
      }),

    expireElevateGrant: ({ grantId }) =>
      deps.pool.transaction(async (trx) => {
        const grants = createGrantProcessQueries(trx);
        const result = await grants.expireIfDue(grantId);
        if (result.outcome !== 'expired') return result;
        const grant = (await grants.findGrantById(grantId))!;
        const environmentId = await grants.environmentOf(grantId);
        await recordGrant(trx, systemActor('elevate-grant'), environmentId, 'expired', grant, { ...grant, state: result.from as 'approved' | 'active' });
        return { outcome: 'expired' as const };
      }),
  };
}
