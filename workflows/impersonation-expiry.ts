// Marks one impersonation grant expired at its expiresAt, unless a revoke ends it first. The token's `exp` already
// bounds its use; this makes the grant's state and event say so. The database decides: the activity expires the
// row only if it is still in force and due, and tells the process its current expiry otherwise.
import type { ImpersonationExpiryInput, ProcessTopics } from '../lib/processes/contracts.ts';
import { waitForDeadline } from './deadline.ts';
import { defineProcess, dueOutcome, iso, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { ImpersonationExpiryInput, ImpersonationMessage } from '../lib/processes/contracts.ts';
export type ImpersonationExpiryTopics = ProcessTopics<'impersonation-expiry'>;

export function impersonationExpiry(
  ctx: ProcessContext<ImpersonationExpiryTopics>,
  input: ImpersonationExpiryInput,
): Promise<'expired' | 'settled' | 'revoked'> {
  return waitForDeadline(ctx, {
    until: input.expiresAt,
    topic: 'impersonation',
    onMessage: (message) => (message.revoked ? { done: 'revoked' as const } : undefined),
    due: async () => {
      const result = await ctx.run('expireImpersonationGrant', { grantId: input.grantId }, INFRASTRUCTURE_RETRY);
      return result.outcome === 'pending' ? { until: result.expiresAt } : { done: result.outcome };
    },
  });
}

export const impersonationExpiryProcess = defineProcess('impersonation-expiry', {
  workflowType: 'impersonationExpiryWorkflow',
  logic: impersonationExpiry,
  activities: {
    expireImpersonationGrant: {
      summary: (i) => `expire impersonation grant ${i.grantId} if it is due`,
      outcome: (o) => dueOutcome('expires', o.outcome === 'pending' ? o.expiresAt : undefined, o.outcome),
    },
  },
  sweep: restartFailedOrMissing('impersonation-expiry', 'pendingImpersonationGrants', (g) => ({
    entityId: g.id,
    tenantId: g.tenantId,
    input: { grantId: g.id, expiresAt: g.expiresAt },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'impersonation_grants', id: i.grantId } }),
  describe: (i) => ({
    summary: `Expires impersonation grant ${i.grantId} when due`,
    details: `Marks impersonation grant \`${i.grantId}\` expired at ${iso(i.expiresAt)} unless it is revoked first (signal \`impersonation\`).`,
  }),
});
