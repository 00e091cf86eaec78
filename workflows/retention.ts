// The deployment's retention: every interval, creates the monthly partitions of events, audit entries, AuthZEN
// decision logs and deliveries ahead of time, and detaches then drops the partitions whose month is past its kind's
// retention (a whole month at once, never a long DELETE); on the embedded engine it also deletes the records of
// processes finished longer than PROCESS_HISTORY_RETENTION ago, in short batches. One process per deployment
// (db/processes/retention.ts); like the OIDC clean-up, a run makes `rounds` rounds, then starts its next run through
// the outbox and ends, so histories stay short.
import type { RetentionInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration, type PlannedStart } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { RetentionInput } from '../lib/processes/contracts.ts';

/** Rounds per run (a day at the default interval of one hour). */
export const ROUNDS_PER_RUN = 24;

export async function retention(ctx: ProcessContext, input: RetentionInput): Promise<'continued'> {
  const rounds = input.rounds ?? ROUNDS_PER_RUN;
  for (let round = 1; round <= rounds; round++) {
    await ctx.run(
      'applyRetention',
      { monthsAhead: input.monthsAhead, retentionMs: input.retentionMs, processHistoryMs: input.processHistoryMs },
      INFRASTRUCTURE_RETRY,
    );
    if (round < rounds) await ctx.sleep(input.intervalMs);
  }
  await ctx.run('continueRetention', input, INFRASTRUCTURE_RETRY);
  return 'continued';
}

export const retentionProcess = defineProcess('retention', {
  workflowType: 'retentionWorkflow',
  logic: retention,
  activities: {
    applyRetention: {
      summary: (i) => `create partitions ${i.monthsAhead} months ahead and drop expired ones`,
      outcome: (o) =>
        `${o.created} partitions created, ${o.dropped.length} dropped${o.dropped.length ? ` (${o.dropped.join(', ')})` : ''}` +
        (o.pruned ? `, ${o.pruned} finished process records deleted` : ''),
    },
    continueRetention: {
      summary: (i) => `start the next run, due in ${duration(i.intervalMs)}`,
      outcome: () => 'next run enqueued',
    },
  },
  // Started at boot and by each run's end; the sweeper starts it when neither left a start waiting and it is not running.
  sweep: {
    rows: 'retention',
    plan: async (rows, settings, status) => {
      const starts: PlannedStart[] = [];
      if (!settings.retention) return starts;
      for (const row of rows) {
        if ((await status('retention', row.id)) !== 'running') {
          starts.push({ kind: 'retention', entityId: row.id, tenantId: null, input: settings.retention });
        }
      }
      return starts;
    },
  },
  scope: () => ({ of: 'tenant' }),
  describe: (i) => ({
    summary: `Applies retention every ${duration(i.intervalMs)}`,
    details:
      `Every ${duration(i.intervalMs)}: creates the monthly partitions of events, audit entries, AuthZEN decision logs and deliveries through ${i.monthsAhead} months ahead, ` +
      `and detaches then drops the partitions whose month ended more than the retention ago (events ${duration(i.retentionMs.events)}, ` +
      `audit entries ${duration(i.retentionMs.auditLogs)}, decision logs ${duration(i.retentionMs.decisions)}` +
      (i.retentionMs.deliveries === undefined ? '' : `, deliveries ${duration(i.retentionMs.deliveries)}, a pending one holding its month back`) +
      '). ' +
      (i.processHistoryMs === undefined
        ? ''
        : `On the embedded engine it deletes the records of processes finished more than ${duration(i.processHistoryMs)} ago. `) +
      `After ${i.rounds ?? ROUNDS_PER_RUN} rounds it starts its next run and ends, so its history stays short.`,
  }),
});
