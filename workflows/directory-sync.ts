// The directory sync of one environment: deprovisions users that were deactivated or deleted (memberships,
// credentials), and applies future-dated lifecycle changes (an HR prehire's start, a termination date) when due.
// The database holds the work (directory_deprovisionings, directory_lifecycle_changes): messages only wake the
// process, which asks the database what is due, sleeps until the next change, and ends when nothing is pending
// (a start of an ended one begins a new run: RESTARTED_WHEN_COMPLETED), so its history stays short.
import type { DirectorySyncInput, ProcessTopics } from '../lib/processes/contracts.ts';
import { defineProcess, iso, type PlannedStart } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { DirectorySyncInput, DirectorySyncMessage } from '../lib/processes/contracts.ts';
export type DirectorySyncTopics = ProcessTopics<'directory-sync'>;

/** How long an idle process waits for more work before it ends (a burst of changes is served by one run). */
export const IDLE_MS = 60_000;
/** Rounds per run: past them the run ends and the next change (or the sweeper) starts a fresh one. */
export const MAX_ROUNDS = 200;
/** The least wait before asking again when the workflow's clock says a change is due but the database does not yet. */
export const RECHECK_FLOOR_MS = 1000;

export async function directorySync(ctx: ProcessContext<DirectorySyncTopics>, input: DirectorySyncInput): Promise<'idle' | 'rounds'> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = await ctx.run('syncDirectory', { environmentId: input.environmentId }, INFRASTRUCTURE_RETRY);
    if (result.more) continue;
    const now = await ctx.now();
    const remaining = result.nextDueAt === null ? (input.idleMs ?? IDLE_MS) : result.nextDueAt - now;
    const wait = remaining > 0 ? remaining : RECHECK_FLOOR_MS;
    const message = await ctx.receive('directory', wait);
    if (!message && result.nextDueAt === null) return 'idle';
  }
  return 'rounds';
}

export const directorySyncProcess = defineProcess('directory-sync', {
  workflowType: 'directorySyncWorkflow',
  logic: directorySync,
  activities: {
    syncDirectory: {
      summary: (i) => `deprovision users and apply due lifecycle changes in environment ${i.environmentId}`,
      outcome: (o) => `${o.deprovisioned} deprovisioned, ${o.applied} lifecycle changes applied${o.nextDueAt ? `, next due at ${iso(o.nextDueAt)}` : ''}`,
    },
  },
  // It ends when idle, so a completed one with work waiting needs a start too (RESTARTED_WHEN_COMPLETED).
  sweep: {
    rows: 'pendingDirectorySyncs',
    plan: async (environments, _settings, status) => {
      const starts: PlannedStart[] = [];
      for (const e of environments) {
        if ((await status('directory-sync', e.id)) !== 'running') {
          starts.push({ kind: 'directory-sync', entityId: e.id, tenantId: e.tenantId, input: { environmentId: e.id } });
        }
      }
      return starts;
    },
  },
  scope: (i) => ({ of: 'tenant', environmentId: i.environmentId }),
  describe: (i) => ({
    summary: `Deprovisions users and applies lifecycle changes in environment ${i.environmentId}`,
    details:
      `Deprovisions the users of environment \`${i.environmentId}\` that were deactivated or deleted (signal \`directory\`) and applies ` +
      'future-dated lifecycle changes (HR prehire starts, terminations) when due; ends when nothing is pending, and the next change starts a new run.',
  }),
});
