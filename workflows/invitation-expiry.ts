// Expires one organization invitation at its expiresAt, unless a message extends it (resend) or stops it
// (revoked, accepted). The database decides: the activity expires the row only if it is still pending and due,
// and tells the process the row's current expiry otherwise (a resend whose message is still on its way).
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export interface InvitationExpiryInput {
  invitationId: string;
  /** When the invitation expires, in ms since the epoch. */
  expiresAt: number;
}

/** A message on topic `invitation`: a new expiry (resend), or the end of the invitation (revoked, accepted). */
export interface InvitationMessage {
  expiresAt?: number;
  revoked?: boolean;
  accepted?: boolean;
}

/** The topics this process receives on, with their messages. */
export interface InvitationExpiryTopics {
  invitation: InvitationMessage;
}

/**
 * The least wait before asking the database again after it said "not due yet": when the workflow's clock runs
 * ahead of Postgres `now()` at the due moment, the process would otherwise ask again and again without a timer.
 */
export const RECHECK_FLOOR_MS = 1000;

export async function invitationExpiry(ctx: ProcessContext<InvitationExpiryTopics>, input: InvitationExpiryInput): Promise<'expired' | 'settled' | 'stopped'> {
  let expiresAt = input.expiresAt;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(expiresAt, notBefore) - now;
    const message = remaining > 0 ? await ctx.receive('invitation', remaining) : undefined;
    if (message) {
      if (message.revoked || message.accepted) return 'stopped';
      if (typeof message.expiresAt === 'number') expiresAt = message.expiresAt;
      continue;
    }
    const result = await ctx.run('expireInvitation', { invitationId: input.invitationId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'pending') return result.outcome;
    expiresAt = result.expiresAt;
    // The check ran once the wait was over (`now` was read before it): the next one comes at least the floor later.
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}
