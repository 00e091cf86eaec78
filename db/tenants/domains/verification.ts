// The decision of tenant domain verification (verify once, or explain why not), shared by the verification
// process (activities checkDomain, failDomainVerification) and POST …/verify.
import { UniqueIntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import { lookupTxtToken } from '../../../lib/dns.ts';
import { recordChange, type Actor, type RequestOrigin } from '../../shared/changes.ts';
import { createDomainVerificationQueries } from './queries.ts';
import type { TenantDomain } from './rows.ts';

export interface DomainDeps {
  pool: DatabasePool;
  /** `ip` or `ip:port` of the DNS servers to ask; empty = the system's resolvers. */
  dnsServers: string[];
}

export interface VerificationOutcome {
  success: boolean;
  message: string;
  /** Null when the domain no longer exists. */
  domain: TenantDomain | null;
}

const heldElsewhere = (domain: string) => `The domain ${domain} is already verified by another tenant.`;

/**
 * Checks a domain now and marks it verified (with its event, exactly once) when its TXT record holds the token.
 * Re-reads the row: a deleted or already verified domain is answered as it is.
 */
export async function verifyDomainNow(deps: DomainDeps, domainId: string, by: { actor: Actor; origin?: RequestOrigin }): Promise<VerificationOutcome> {
  const queries = createDomainVerificationQueries(deps.pool);
  const current = await queries.findDomainById(domainId);
  if (!current) return { success: false, message: 'The domain no longer exists.', domain: null };
  if (current.verified) return { success: true, message: `The domain ${current.domain} is verified.`, domain: current };
  if (await queries.verifiedElsewhere(current.domain, current.tenantId)) return { success: false, message: heldElsewhere(current.domain), domain: current };

  const lookup = await lookupTxtToken(current.validationSubDomain!, current.validationToken!, deps.dnsServers);
  if (lookup.status !== 'found') return { success: false, message: lookup.message, domain: current };

  try {
    return await deps.pool.transaction(async (trx) => {
      const locked = await createDomainVerificationQueries(trx).lockDomainById(domainId);
      if (!locked) return { success: false, message: 'The domain no longer exists.', domain: null };
      const domain = await createDomainVerificationQueries(trx).markVerified(domainId);
      if (!domain) return { success: true, message: `The domain ${locked.domain} is verified.`, domain: locked };
      await recordChange(trx, {
        actor: by.actor,
        origin: by.origin,
        action: 'tenant.domain.verify',
        resource: { type: 'tenant_domain', id: domain.id },
        scope: { tenantId: domain.tenantId },
        before: locked,
        after: domain,
        event: { type: 'tenant.domain.verified', data: { domain } },
      });
      return { success: true, message: `TXT record found at ${domain.validationSubDomain}: the domain ${domain.domain} is verified.`, domain };
    });
  } catch (error) {
    // Another tenant verified the same domain between our check and our update (the partial unique index).
    if (error instanceof UniqueIntegrityConstraintViolationError) return { success: false, message: heldElsewhere(current.domain), domain: current };
    throw error;
  }
}
