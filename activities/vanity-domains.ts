// advanceVanityDomain: one round of the vanity-domain process. It re-reads the row and acts by its status (each change
// with its audit entry and event, under the row's lock), and answers how long to wait before the next round.
import type { DatabasePool } from 'slonik';
import { lookupTxtToken } from '../lib/dns.ts';
import { lookupCname } from '../lib/dns-cname.ts';
import { formatDuration } from '../lib/durations.ts';
import { recordChange, type Actor } from '../db/shared/changes.ts';
import { createVanityProcessQueries } from '../db/vanity-domains/process.ts';
import { toVanityDomain, type VanityDomainRow } from '../db/vanity-domains/rows.ts';
import type { Activities } from '../workflows/activities.ts';
import { obtainCertificate, revokeCertificate, type AcmeDeps } from './vanity-acme.ts';

export interface VanityDomainDeps extends AcmeDeps {
  pool: DatabasePool;
  dnsServers: string[];
}

const SYSTEM: Actor = { type: 'system', id: 'vanity-domain' };
/** A failed domain waits for a re-check (a message); it looks again daily all the same. */
const IDLE_MS = 86_400_000;

type Step = Awaited<ReturnType<Activities['advanceVanityDomain']>>;

export function createVanityDomainActivities(deps: VanityDomainDeps): Pick<Activities, 'advanceVanityDomain'> {
  const { pool } = deps;
  const queries = createVanityProcessQueries(pool);

  /** Applies `change` to the row (null: nothing to do) with its audit entry and event. */
  const record = async (
    row: VanityDomainRow,
    change: (q: ReturnType<typeof createVanityProcessQueries>) => Promise<VanityDomainRow | null>,
    action: string,
    event: (domain: ReturnType<typeof toVanityDomain>) => Parameters<typeof recordChange>[1]['event'],
  ) =>
    pool.transaction(async (trx) => {
      const changed = await change(createVanityProcessQueries(trx));
      if (!changed) return null;
      const domain = toVanityDomain(changed);
      await recordChange(trx, {
        actor: SYSTEM,
        action,
        resource: { type: 'vanity_domain', id: row.id },
        scope: { tenantId: row.tenantId, environmentId: row.environmentId },
        before: { status: row.status },
        after: { status: changed.status, failureReason: changed.failureReason },
        event: event(domain),
      });
      return changed;
    });

  const remove = async (row: VanityDomainRow): Promise<Step> => {
    const secrets = await queries.secrets(row.id);
    if (secrets?.chain) await revokeCertificate(deps, secrets.chain);
    await pool.transaction(async (trx) => {
      const locked = await createVanityProcessQueries(trx).lock(row.id);
      if (!locked) return;
      await createVanityProcessQueries(trx).remove(row.id);
      await recordChange(trx, {
        actor: SYSTEM,
        action: 'vanity_domain.remove',
        resource: { type: 'vanity_domain', id: row.id },
        scope: { tenantId: row.tenantId, environmentId: row.environmentId },
        before: { hostname: row.hostname, status: row.status },
        after: null,
        event: { type: 'vanity_domain.removed', data: { domain: toVanityDomain(locked), certificateRevoked: Boolean(secrets?.chain) } },
      });
    });
    return { done: true, status: 'removed', waitMs: 0 };
  };

  const fail = (row: VanityDomainRow, reason: string) =>
    record(
      row,
      (q) => q.markFailed(row.id, reason),
      'vanity_domain.fail',
      (domain) => ({ type: 'vanity_domain.failed', data: { domain, reason } }),
    );

  const checkDns = async (row: VanityDomainRow, input: Parameters<Activities['advanceVanityDomain']>[0]): Promise<Step> => {
    const [txt, cname] = await Promise.all([
      lookupTxtToken(row.txtName, row.txtValue, deps.dnsServers),
      lookupCname(row.hostname, row.cnameTarget, deps.dnsServers),
    ]);
    if (txt.status === 'found' && cname.status === 'found') {
      await record(
        row,
        (q) => q.markDnsVerified(row.id),
        'vanity_domain.dns_verify',
        (domain) => ({ type: 'vanity_domain.dns_verified', data: { domain } }),
      );
      return { done: false, status: 'issuing', waitMs: 0 };
    }
    const waited = Date.now() - Date.parse(row.dnsCheckingSince);
    if (waited < input.dnsGiveUpMs) return { done: false, status: 'pending_dns', waitMs: Math.min(input.dnsIntervalMs, input.dnsGiveUpMs - waited) };
    const found = [txt, cname].map((l) => (l.status === 'found' ? null : l.message)).filter(Boolean);
    await fail(row, `${found.join(' ')} (checked for ${formatDuration(input.dnsGiveUpMs)})`);
    return { done: false, status: 'failed', waitMs: IDLE_MS };
  };

  const issue = async (row: VanityDomainRow, renewBeforeMs: number): Promise<Step> => {
    const renewing = row.status === 'renewing';
    let issued;
    try {
      issued = await obtainCertificate(deps, row.hostname);
    } catch (error) {
      await fail(row, `The certificate authority did not issue a certificate: ${(error as Error).message}`);
      return { done: false, status: 'failed', waitMs: IDLE_MS };
    }
    const stored = await record(
      row,
      (q) => q.storeCertificate(row.id, issued, renewing),
      renewing ? 'vanity_domain.certificate_renew' : 'vanity_domain.certificate_issue',
      (domain) => (renewing ? { type: 'vanity_domain.certificate_renewed', data: { domain } } : { type: 'vanity_domain.certificate_issued', data: { domain } }),
    );
    return { done: false, status: stored?.status ?? 'active', waitMs: renewalWait(issued.notAfter, renewBeforeMs) };
  };

  return {
    advanceVanityDomain: async (input) => {
      const row = await queries.find(input.domainId);
      if (!row) return { done: true, status: 'removed', waitMs: 0 };
      if (row.removingAt) return remove(row);
      switch (row.status) {
        case 'pending_dns':
          return checkDns(row, input);
        case 'issuing':
        case 'renewing':
          return issue(row, input.renewBeforeMs);
        case 'active': {
          const waitMs = renewalWait(row.certificateNotAfter!, input.renewBeforeMs);
          if (waitMs > 0) return { done: false, status: 'active', waitMs };
          await record(
            row,
            (q) => q.markRenewing(row.id),
            'vanity_domain.renew',
            (domain) => ({ type: 'vanity_domain.renewal_started', data: { domain } }),
          );
          return { done: false, status: 'renewing', waitMs: 0 };
        }
        case 'failed':
          return { done: false, status: 'failed', waitMs: IDLE_MS };
      }
    },
  };
}

const renewalWait = (notAfter: string, renewBeforeMs: number) => Math.max(0, Math.ceil(Date.parse(notAfter) - renewBeforeMs - Date.now()));
