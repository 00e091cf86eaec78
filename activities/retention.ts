// The retention process's side effects (workflows/retention.ts): each statement is short (a partition created, or
// detached and dropped, or a batch of finished process records deleted) and idempotent, so a retry or a replay finds
// the work done.
import type { DatabasePool } from 'slonik';
import { createRetentionQueries, PARTITIONED_TABLES, type PartitionedKind } from '../db/processes/retention.ts';
import type { RetentionInput } from '../lib/processes/contracts.ts';
import type { Activities } from '../workflows/activities.ts';

/** The embedded engine's records of finished processes (worker/embedded-engine.ts); Temporal keeps its own. */
export interface FinishedProcesses {
  /** Deletes up to `limit` records of processes that finished before `before`; returns how many it deleted. */
  prune(before: Date, limit: number): Promise<number>;
}

export interface RetentionDeps {
  pool: DatabasePool;
  /** The configured input of a run: the next run takes it, so a changed setting applies from then. */
  retention?: RetentionInput;
  /** Only where the embedded engine runs. */
  finishedProcesses?: FinishedProcesses;
}

/** Finished process records deleted per statement, and at most per round (the rest waits for the next round). */
export const PRUNE_BATCH = 500;
export const PRUNE_BATCHES_PER_ROUND = 200;

export function createRetentionActivities(deps: RetentionDeps): Pick<Activities, 'applyRetention' | 'continueRetention'> {
  const q = createRetentionQueries(deps.pool);
  return {
    applyRetention: async ({ monthsAhead, retentionMs, processHistoryMs }) => {
      let created = 0;
      const dropped: string[] = [];
      for (const kind of Object.keys(PARTITIONED_TABLES) as PartitionedKind[]) {
        created += await q.ensurePartitions(kind, monthsAhead);
        const keptMs = retentionMs[kind];
        if (keptMs !== undefined) dropped.push(...(await q.dropExpired(kind, keptMs)));
      }
      let pruned = 0;
      if (processHistoryMs !== undefined && deps.finishedProcesses) {
        const before = new Date(Date.now() - processHistoryMs);
        for (let batch = 0; batch < PRUNE_BATCHES_PER_ROUND; batch++) {
          const n = await deps.finishedProcesses.prune(before, PRUNE_BATCH);
          pruned += n;
          if (n < PRUNE_BATCH) break;
        }
      }
      return { created, dropped, pruned };
    },

    continueRetention: async (input) => {
      const next = deps.retention ?? input;
      await q.enqueueStart(next, next.intervalMs);
    },
  };
}
