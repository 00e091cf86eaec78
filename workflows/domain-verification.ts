// Polls the DNS TXT record of a tenant domain on a backoff schedule until it verifies, the domain is gone, or
// the give-up time passes. Giving up emits tenant.domain.verification_failed and leaves the domain unverified
// (verified=false, validatedAt null): a later POST …/verify can still verify it.
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export interface DomainVerificationInput {
  domainId: string;
  /** Delays between checks, in ms; the last one repeats. */
  intervalsMs: number[];
  /** Give up this long after the process started. */
  giveUpAfterMs: number;
}

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
