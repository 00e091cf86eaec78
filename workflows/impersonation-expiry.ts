// Marks one impersonation grant expired at its expiresAt, unless a revoke ends it first. The token's `exp` already
// bounds its use; this makes the grant's state and event say so. The database decides: the activity expires the
// row only if it is still in force and due, and tells the process its current expiry otherwise.
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';
import { RECHECK_FLOOR_MS } from './invitation-expiry.ts';

export interface ImpersonationExpiryInput {
  grantId: string;
  /** When the grant expires, in ms since the epoch. */
  expiresAt: number;
}

/** A message on topic `impersonation`: the grant was revoked. */
export interface ImpersonationMessage {
  revoked?: boolean;
}

export interface ImpersonationExpiryTopics {
  impersonation: ImpersonationMessage;
}

export async function impersonationExpiry(
  ctx: ProcessContext<ImpersonationExpiryTopics>,
  input: ImpersonationExpiryInput,
): Promise<'expired' | 'settled' | 'revoked'> {
  let expiresAt = input.expiresAt;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(expiresAt, notBefore) - now;
    const message = remaining > 0 ? await ctx.receive('impersonation', remaining) : undefined;
    if (message?.revoked) return 'revoked';
    if (message) continue;
    const result = await ctx.run('expireImpersonationGrant', { grantId: input.grantId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'pending') return result.outcome;
    expiresAt = result.expiresAt;
    // The check ran once the wait was over (`now` was read before it): the next one comes at least the floor later.
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}
