// The life of a vanity domain: wait for its DNS records, obtain a certificate over ACME, sleep until it is due for
// renewal and renew it, again and again, until the domain is removed (then revoke and delete). The row decides:
// each round runs `advanceVanityDomain`, which acts on the row's status and answers how long to wait before the next
// round; a message on `vanity-domain` (a re-check, a removal) cuts the wait short.
import type { ProcessTopics, VanityDomainInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { VanityDomainInput, VanityDomainMessage } from '../lib/processes/contracts.ts';
export type VanityDomainTopics = ProcessTopics<'vanity-domain'>;

export async function vanityDomain(ctx: ProcessContext<VanityDomainTopics>, input: VanityDomainInput): Promise<'removed'> {
  for (;;) {
    const step = await ctx.run('advanceVanityDomain', input, INFRASTRUCTURE_RETRY);
    if (step.done) return 'removed';
    if (step.waitMs > 0) await ctx.receive('vanity-domain', step.waitMs);
  }
}

export const vanityDomainProcess = defineProcess('vanity-domain', {
  workflowType: 'vanityDomainWorkflow',
  logic: vanityDomain,
  activities: {
    advanceVanityDomain: {
      summary: (i) => `advance vanity domain ${i.domainId} (check DNS, issue, renew or remove)`,
      outcome: (o) => (o.done ? 'removed' : `${o.status}; next look in ${duration(o.waitMs)}`),
    },
  },
  sweep: restartFailedOrMissing('vanity-domain', 'vanityDomains', (d, settings) => ({
    entityId: d.id,
    tenantId: d.tenantId,
    input: { domainId: d.id, ...(settings.vanity ?? VANITY_DEFAULTS) },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'vanity_domains', id: i.domainId } }),
  describe: (i) => ({
    summary: `Keeps vanity domain ${i.domainId} certified`,
    details:
      `Waits for the DNS records of vanity domain \`${i.domainId}\` (every ${duration(i.dnsIntervalMs)}, for ${duration(i.dnsGiveUpMs)}), ` +
      `obtains its certificate over ACME and renews it ${duration(i.renewBeforeMs)} before expiry; signal \`vanity-domain\` makes it look now.`,
  }),
});

/** The configuration's defaults, for a sweeper started without the vanity settings. */
const VANITY_DEFAULTS = { dnsIntervalMs: 60_000, dnsGiveUpMs: 7 * 86_400_000, renewBeforeMs: 30 * 86_400_000 };
