// Activities of the domain verification process; the decision itself lives with the domain rows.
import { recordChange, type Actor } from '../db/shared/changes.ts';
import { createDomainVerificationQueries } from '../db/tenants/domains/queries.ts';
import { verifyDomainNow, type DomainDeps } from '../db/tenants/domains/verification.ts';
import { formatDuration } from '../lib/durations.ts';
import type { Activities } from '../workflows/activities.ts';

export type { DomainDeps };

const SYSTEM: Actor = { type: 'system', id: 'domain-verification' };

export function createDomainActivities(deps: DomainDeps): Pick<Activities, 'checkDomain' | 'failDomainVerification'> {
  return {
    checkDomain: async ({ domainId }) => {
      const outcome = await verifyDomainNow(deps, domainId, { actor: SYSTEM });
      if (!outcome.domain) return { done: true, verified: false };
      return { done: outcome.domain.verified, verified: outcome.domain.verified };
    },

    failDomainVerification: async ({ domainId, waitedMs }) => {
      await deps.pool.transaction(async (trx) => {
        const domain = await createDomainVerificationQueries(trx).markVerificationFailed(domainId);
        if (!domain) return; // verified, deleted, or this give-up already recorded
        await recordChange(trx, {
          actor: SYSTEM,
          action: 'tenant.domain.verification_fail',
          resource: { type: 'tenant_domain', id: domain.id },
          scope: { tenantId: domain.tenantId },
          after: { verificationFailed: true },
          event: {
            type: 'tenant.domain.verification_failed',
            data: { domain, reason: `No TXT record at ${domain.validationSubDomain} matched the validation token within ${formatDuration(waitedMs)}.` },
          },
        });
      });
    },
  };
}
