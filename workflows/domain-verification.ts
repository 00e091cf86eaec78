// Polls the DNS TXT record of a tenant domain on a backoff schedule until it verifies, the domain is gone, or
// the give-up time passes. Giving up emits tenant.domain.verification_failed and leaves the domain unverified
// (verified=false, validatedAt null): a later POST …/verify can still verify it.
import type { DomainVerificationInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { DomainVerificationInput } from '../lib/processes/contracts.ts';

export async function domainVerification(ctx: ProcessContext, input: DomainVerificationInput): Promise<'verified' | 'gone' | 'failed'> {
  const { domainId, intervalsMs, giveUpAfterMs } = input;
  const deadline = (await ctx.now()) + giveUpAfterMs;
  for (let round = 0; ; round++) {
    const remaining = deadline - (await ctx.now());
    // A fresh token cannot be published yet, so the first check waits for the first interval.
    const interval = intervalsMs[Math.min(round, intervalsMs.length - 1)] ?? remaining;
    await ctx.sleep(Math.max(0, Math.min(interval, remaining)));
    const result = await ctx.run('checkDomain', { domainId }, INFRASTRUCTURE_RETRY);
    if (result.done) return result.verified ? 'verified' : 'gone';
    if ((await ctx.now()) >= deadline) break;
  }
  await ctx.run('failDomainVerification', { domainId, waitedMs: giveUpAfterMs }, INFRASTRUCTURE_RETRY);
  return 'failed';
}

export const domainVerificationProcess = defineProcess('domain-verification', {
  workflowType: 'domainVerificationWorkflow',
  logic: domainVerification,
  activities: {
    checkDomain: {
      summary: (i) => `check the TXT record of domain ${i.domainId}`,
      outcome: (o) => (o.verified ? 'verified' : o.done ? 'domain deleted' : 'TXT record not found yet'),
    },
    failDomainVerification: { summary: (i) => `give up verifying domain ${i.domainId}` },
  },
  sweep: restartFailedOrMissing('domain-verification', 'pendingDomains', (d, settings) => ({
    entityId: d.id,
    tenantId: d.tenantId,
    input: { domainId: d.id, intervalsMs: settings.domains.verificationIntervalsMs, giveUpAfterMs: settings.domains.verificationGiveUpMs },
  })),
  scope: (i) => ({ of: 'tenant', domainId: i.domainId }),
  describe: (i) => ({
    summary: `Verifies the DNS TXT record of tenant domain ${i.domainId}`,
    details: `Checks the TXT record of domain \`${i.domainId}\` until it holds the token or the domain is deleted; gives up after ${duration(i.giveUpAfterMs)}.`,
  }),
});
