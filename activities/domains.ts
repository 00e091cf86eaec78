// Tenant domain verification by DNS TXT record: the lookup, and the decision (verify once, or explain why not)
// shared by the verification process (activities checkDomain, failDomainVerification) and POST …/verify.
import { Resolver } from 'node:dns/promises';
import { UniqueIntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import { recordChange, type Actor, type RequestOrigin } from '../db/queries/changes.ts';
import { createTenantDomainQueries } from '../db/queries/tenant-domains.ts';
import type { TenantDomain } from '../db/rows/tenant-domain.ts';
import type { Activities } from '../workflows/activities.ts';

export interface DomainDeps {
  pool: DatabasePool;
  /** `ip` or `ip:port` of the DNS servers to ask; empty = the system's resolvers. */
  dnsServers: string[];
}

export type TxtLookup =
  | { status: 'found' }
  | { status: 'missing' | 'mismatch' | 'error'; message: string };

/** Looks for a TXT record at `name` whose value (its strings joined) equals `token`. */
export async function lookupTxtToken(name: string, token: string, dnsServers: string[]): Promise<TxtLookup> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (dnsServers.length) resolver.setServers(dnsServers);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { status: 'missing', message: `No TXT record found at ${name}.` };
    return { status: 'error', message: `The DNS lookup of ${name} failed (${code ?? 'error'}); try again later.` };
  }
  const values = records.map((chunks) => chunks.join('').trim());
  if (values.includes(token)) return { status: 'found' };
  if (values.length === 0) return { status: 'missing', message: `No TXT record found at ${name}.` };
  return { status: 'mismatch', message: `The TXT record at ${name} does not match the validation token.` };
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
  const queries = createTenantDomainQueries(deps.pool);
  const current = await queries.findDomainById(domainId);
  if (!current) return { success: false, message: 'The domain no longer exists.', domain: null };
  if (current.verified) return { success: true, message: `The domain ${current.domain} is verified.`, domain: current };
  if (await queries.verifiedElsewhere(current.domain, current.tenantId)) return { success: false, message: heldElsewhere(current.domain), domain: current };

  const lookup = await lookupTxtToken(current.validationSubDomain!, current.validationToken!, deps.dnsServers);
  if (lookup.status !== 'found') return { success: false, message: lookup.message, domain: current };

  try {
    return await deps.pool.transaction(async (trx) => {
      const locked = await createTenantDomainQueries(trx).lockDomainById(domainId);
      if (!locked) return { success: false, message: 'The domain no longer exists.', domain: null };
      const domain = await createTenantDomainQueries(trx).markVerified(domainId);
      if (!domain) return { success: true, message: `The domain ${locked.domain} is verified.`, domain: locked };
      await recordChange(trx, {
        actor: by.actor, origin: by.origin, action: 'tenant.domain.verify', resource: { type: 'tenant_domain', id: domain.id },
        scope: { tenantId: domain.tenantId }, before: locked, after: domain,
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

const UNITS: [string, number][] = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]];
/** `7 days`, `90 minutes`, `200 ms`: the largest unit that divides the duration. */
export function formatDuration(ms: number) {
  const [unit, size] = UNITS.find(([, size]) => ms >= size && ms % size === 0) ?? ['ms', 1];
  const n = ms / size;
  return unit === 'ms' ? `${n} ms` : `${n} ${unit}${n === 1 ? '' : 's'}`;
}

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
        const domain = await createTenantDomainQueries(trx).markVerificationFailed(domainId);
        if (!domain) return; // verified, deleted, or this give-up already recorded
        await recordChange(trx, {
          actor: SYSTEM, action: 'tenant.domain.verification_fail', resource: { type: 'tenant_domain', id: domain.id },
          scope: { tenantId: domain.tenantId }, after: { verificationFailed: true },
          event: { type: 'tenant.domain.verification_failed', data: { domain, reason: `No TXT record at ${domain.validationSubDomain} matched the validation token within ${formatDuration(waitedMs)}.` } },
        });
      });
    },
  };
}
