// Retires one trust-store key at the end of the grace period its rotation gave it (retiresAt). The database
// decides: the activity retires the key only if it is still retiring and due, and tells the process its current
// retiresAt otherwise; a key revoked or deleted meanwhile settles the process.
import type { TrustStoreKeyRetirementInput } from '../lib/processes/contracts.ts';
import { waitForDeadline } from './deadline.ts';
import { defineProcess, dueOutcome, iso, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { TrustStoreKeyRetirementInput } from '../lib/processes/contracts.ts';

export function trustStoreKeyRetirement(ctx: ProcessContext, input: TrustStoreKeyRetirementInput): Promise<'retired' | 'settled'> {
  return waitForDeadline(ctx, {
    until: input.retiresAt,
    due: async () => {
      const result = await ctx.run('retireTrustStoreKey', { keyId: input.keyId }, INFRASTRUCTURE_RETRY);
      return result.outcome === 'pending' ? { until: result.retiresAt } : { done: result.outcome };
    },
  });
}

export const trustStoreKeyRetirementProcess = defineProcess('trust-store-key-retirement', {
  workflowType: 'trustStoreKeyRetirementWorkflow',
  logic: trustStoreKeyRetirement,
  activities: {
    retireTrustStoreKey: {
      summary: (i) => `retire trust-store key ${i.keyId} if it is due`,
      outcome: (o) => dueOutcome('retires', o.outcome === 'pending' ? o.retiresAt : undefined, o.outcome),
    },
  },
  sweep: restartFailedOrMissing('trust-store-key-retirement', 'retiringKeys', (k) => ({
    entityId: k.id,
    tenantId: k.tenantId,
    input: { keyId: k.id, retiresAt: k.retiresAt },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'trust_store_keys', id: i.keyId } }),
  describe: (i) => ({
    summary: `Retires trust-store key ${i.keyId} at the end of its rotation grace period`,
    details: `Retires key \`${i.keyId}\` at ${iso(i.retiresAt)} (status \`retired\`, event \`mcp.trust_store.key.retired\`) unless it was revoked or deleted before.`,
  }),
});
