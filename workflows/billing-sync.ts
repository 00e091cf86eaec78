// The Stripe reconcile of one environment's billing: each round pushes the catalog (products and prices) to Stripe
// and pulls its subscriptions (activities/billing-sync.ts), then waits for the interval or a `billing-sync` message
// (POST …/billing/sync). It ends when the environment has no active `stripe` add-on; after `rounds` rounds it starts
// its next run through the outbox and ends (the engine-neutral continue-as-new, as the OIDC clean-up does), so
// histories stay short. The sweeper starts it for every environment with an active `stripe` add-on.
import type { BillingSyncInput, ProcessTopics } from '../lib/processes/contracts.ts';
import { defineProcess, duration, type PlannedStart } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { BillingSyncInput, BillingSyncMessage } from '../lib/processes/contracts.ts';
export type BillingSyncTopics = ProcessTopics<'billing-sync'>;

/** Syncs per run (a day at the default interval of an hour). */
export const ROUNDS_PER_RUN = 24;

export async function billingSync(ctx: ProcessContext<BillingSyncTopics>, input: BillingSyncInput): Promise<'unconfigured' | 'continued'> {
  const rounds = input.rounds ?? ROUNDS_PER_RUN;
  for (let round = 1; round <= rounds; round++) {
    const result = await ctx.run('syncBilling', { environmentId: input.environmentId }, INFRASTRUCTURE_RETRY);
    if (!result.configured) return 'unconfigured';
    if (round < rounds) await ctx.receive('billing-sync', input.intervalMs);
  }
  await ctx.run('continueBillingSync', input, INFRASTRUCTURE_RETRY);
  return 'continued';
}

export const billingSyncProcess = defineProcess('billing-sync', {
  workflowType: 'billingSyncWorkflow',
  logic: billingSync,
  activities: {
    syncBilling: {
      summary: (i) => `push the billing catalog of environment ${i.environmentId} to Stripe and pull its subscriptions`,
      outcome: (o) =>
        !o.configured
          ? 'no active stripe add-on: the process ends'
          : o.error
            ? `failed: ${o.error}`
            : `${o.productsPushed} products and ${o.pricesPushed} prices pushed, ${o.subscriptionsPulled} subscriptions changed`,
    },
    continueBillingSync: {
      summary: (i) => `start the next run, due in ${duration(i.intervalMs)}`,
      outcome: () => 'next run enqueued',
    },
  },
  sweep: {
    rows: 'billingSyncs',
    plan: async (rows, _settings, status) => {
      const starts: PlannedStart[] = [];
      for (const row of rows) {
        if ((await status('billing-sync', row.id)) !== 'running') {
          starts.push({ kind: 'billing-sync', entityId: row.id, tenantId: row.tenantId, input: { environmentId: row.id, intervalMs: row.intervalMs } });
        }
      }
      return starts;
    },
  },
  scope: (i) => ({ of: 'tenant', environmentId: i.environmentId }),
  describe: (i) => ({
    summary: `Syncs the billing of environment ${i.environmentId} with Stripe every ${duration(i.intervalMs)}`,
    details:
      `Every ${duration(i.intervalMs)}, or at once on signal \`billing-sync\`: pushes the plans of environment \`${i.environmentId}\` to Stripe as products ` +
      'and prices, and pulls its subscriptions, updating entitlements. Ends when the environment has no active `stripe` add-on; after ' +
      `${i.rounds ?? ROUNDS_PER_RUN} rounds it starts its next run and ends, so its history stays short.`,
  }),
});
