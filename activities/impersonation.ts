// expireImpersonationGrant: marks an impersonation grant expired once it is due, with its event, exactly once
// (the row is locked and re-read: a retry, a replay or a second process finds it settled).
import type { DatabasePool } from 'slonik';
import { recordChange } from '../db/shared/changes.ts';
import { createImpersonationProcessQueries } from '../db/access/impersonation/queries.ts';
import type { Activities } from '../workflows/activities.ts';

export interface ImpersonationDeps {
  pool: DatabasePool;
}

export function createImpersonationActivities(deps: ImpersonationDeps): Pick<Activities, 'expireImpersonationGrant'> {
  return {
    expireImpersonationGrant: ({ grantId }) =>
      deps.pool.transaction(async (trx) => {
        const grants = createImpersonationProcessQueries(trx);
        const result = await grants.expireIfDue(grantId);
        if (result.outcome !== 'expired') return result;
        const grant = await grants.byId(grantId);
        await recordChange(trx, {
          actor: { type: 'system', id: 'impersonation-expiry' },
          action: 'impersonation.grant.expire',
          resource: { type: 'impersonation_grant', id: grantId },
          scope: { tenantId: await grants.tenantOf(grantId), environmentId: grant.environmentId },
          before: { status: 'active' },
          after: { status: 'expired' },
          event: { type: 'impersonation.grant.expired', data: { grant } },
        });
        return result;
      }),
  };
}
