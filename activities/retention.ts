// The retention process's side effects (workflows/retention.ts): each statement is short (a partition created, or
// detached and dropped) and idempotent, so a retry or a replay finds the work done.
import type { DatabasePool } from 'slonik';
import { createRetentionQueries, PARTITIONED_TABLES, type PartitionedKind } from '../db/processes/retention.ts';
import type { RetentionInput } from '../lib/processes/contracts.ts';
import type { Activities } from '../workflows/activities.ts';

export interface RetentionDeps {
  pool: DatabasePool;
  /** The configured input of a run: the next run takes it, so a changed setting applies from then. */
  retention?: RetentionInput;
}

export function createRetentionActivities(deps: RetentionDeps): Pick<Activities, 'applyRetention' | 'continueRetention'> {
  const q = createRetentionQueries(deps.pool);
  return {
    applyRetention: async ({ monthsAhead, retentionMs }) => {
      let created = 0;
      const dropped: string[] = [];
      for (const kind of Object.keys(PARTITIONED_TABLES) as PartitionedKind[]) {
        created += await q.ensurePartitions(kind, monthsAhead);
        dropped.push(...(await q.dropExpired(kind, retentionMs[kind])));
      }
      return { created, dropped };
    },

    continueRetention: async (input) => {
      const next = deps.retention ?? input;
      await q.enqueueStart(next, next.intervalMs);
    },
  };
}
