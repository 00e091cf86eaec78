// Retires one trust-store key at the end of the grace period its rotation gave it (retiresAt). The database
// decides: the activity retires the key only if it is still retiring and due, and tells the process its current
// retiresAt otherwise; a key revoked or deleted meanwhile settles the process.
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';
import { RECHECK_FLOOR_MS } from './invitation-expiry.ts';

export interface TrustStoreKeyRetirementInput {
  keyId: string;
  /** When the key stops verifying, in ms since the epoch. */
  retiresAt: number;
}

export async function trustStoreKeyRetirement(ctx: ProcessContext, input: TrustStoreKeyRetirementInput): Promise<'retired' | 'settled'> {
  let retiresAt = input.retiresAt;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(retiresAt, notBefore) - now;
    if (remaining > 0) await ctx.sleep(remaining);
    const result = await ctx.run('retireTrustStoreKey', { keyId: input.keyId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'pending') return result.outcome;
    retiresAt = result.retiresAt;
    // The database said "not due yet" (its clock behind ours): ask again no sooner than the floor.
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}
