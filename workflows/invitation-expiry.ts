// Expires one organization invitation at its expiresAt, unless a message extends it (resend) or stops it
// (revoked, accepted). The database decides: the activity expires the row only if it is still pending and due,
// and tells the process the row's current expiry otherwise (a resend whose message is still on its way).
import type { InvitationExpiryInput, ProcessTopics } from '../lib/processes/contracts.ts';
import { waitForDeadline } from './deadline.ts';
import { defineProcess, dueOutcome, iso, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { InvitationExpiryInput, InvitationMessage } from '../lib/processes/contracts.ts';
export { RECHECK_FLOOR_MS } from './deadline.ts';

/** The topics this process receives on, with their messages. */
export type InvitationExpiryTopics = ProcessTopics<'invitation-expiry'>;

export function invitationExpiry(ctx: ProcessContext<InvitationExpiryTopics>, input: InvitationExpiryInput): Promise<'expired' | 'settled' | 'stopped'> {
  return waitForDeadline(ctx, {
    until: input.expiresAt,
    topic: 'invitation',
    onMessage: (message) =>
      message.revoked || message.accepted ? { done: 'stopped' as const } : typeof message.expiresAt === 'number' ? { until: message.expiresAt } : undefined,
    due: async () => {
      const result = await ctx.run('expireInvitation', { invitationId: input.invitationId }, INFRASTRUCTURE_RETRY);
      return result.outcome === 'pending' ? { until: result.expiresAt } : { done: result.outcome };
    },
  });
}

export const invitationExpiryProcess = defineProcess('invitation-expiry', {
  workflowType: 'invitationExpiryWorkflow',
  logic: invitationExpiry,
  activities: {
    expireInvitation: {
      summary: (i) => `expire invitation ${i.invitationId} if it is due`,
      outcome: (o) => dueOutcome('expires', o.outcome === 'pending' ? o.expiresAt : undefined, o.outcome),
    },
  },
  sweep: restartFailedOrMissing('invitation-expiry', 'pendingInvitations', (i) => ({
    entityId: i.id,
    tenantId: null,
    input: { invitationId: i.id, expiresAt: i.expiresAt },
  })),
  scope: (i) => ({ of: 'invitation', invitationId: i.invitationId }),
  describe: (i) => ({
    summary: `Expires organization invitation ${i.invitationId} when due`,
    details: `Expires invitation \`${i.invitationId}\` at ${iso(i.expiresAt)} unless it is resent (new expiry), revoked or accepted (signal \`invitation\`).`,
  }),
});
