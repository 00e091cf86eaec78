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

export async function invitationExpiry(ctx: ProcessContext<InvitationExpiryTopics>, input: InvitationExpiryInput): Promise<'expired' | 'settled' | 'stopped'> {
  let expiresAt = input.expiresAt;
  for (;;) {
    const remaining = expiresAt - (await ctx.now());
    const message = remaining > 0 ? await ctx.receive('invitation', remaining) : undefined;
    if (message) {
      if (message.revoked || message.accepted) return 'stopped';
      if (typeof message.expiresAt === 'number') expiresAt = message.expiresAt;
      continue;
    }
    const result = await ctx.run('expireInvitation', { invitationId: input.invitationId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'pending') return result.outcome;
    expiresAt = result.expiresAt;
  }
}
