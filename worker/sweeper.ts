// The sweeper: every PROCESS_SWEEP_INTERVAL, restarts the process of any row that should have one running but
// whose process failed (its activities hit a programming error, a Temporal timeout…) or is missing (its start
// was lost or went dead in the outbox). Each kind's definition says which rows (`sweep.rows`, a query of
// db/processes/sweep.ts) and what to start for them (`sweep.plan`): pending invitations, domains pending
// verification, impersonation grants in force, pending deliveries (`delivery-batch` before their first attempt,
// `webhook-delivery` after it), environments with directory-sync work waiting (which ends when idle: a completed one
// is started again), trust-store keys retiring after a rotation, pending access requests and open grants. Restarts
// go through the outbox like every start; a start restarts a failed process and leaves a running or completed one
// alone (ALLOW_DUPLICATE_FAILED_ONLY on Temporal, the same on the embedded engine).
import type { DatabasePool } from 'slonik';
import { createProcessOutboxQueries, processId } from '../db/processes/outbox.ts';
import { createSweepQueries } from '../db/processes/sweep.ts';
import type { OidcCleanupInput, ProcessKind, RetentionInput, VanityTimings } from '../lib/processes/contracts.ts';
import type { PlannedStart, SweepSettings } from '../workflows/definition.ts';
import { processes } from '../workflows/index.ts';
import type { ProcessGateway } from '../workflows/port.ts';

/** Rows looked at per kind and sweep. */
const SWEEP_LIMIT = 500;
/** Rows younger than this are left alone: their start may be on its way through the outbox. */
const GRACE_MS = 60_000;

export interface Sweeper {
  /** One sweep; resolves with the number of processes it (re)started. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startSweeper(deps: {
  pool: DatabasePool;
  gateway: ProcessGateway;
  scheduleMs: number[];
  domains: { verificationIntervalsMs: number[]; verificationGiveUpMs: number };
  oidcCleanup?: OidcCleanupInput;
  retention?: RetentionInput;
  vanity?: VanityTimings;
  intervalMs: number;
  graceMs?: number;
  onError: (error: unknown) => void;
  log?: (message: string) => void;
}): Sweeper {
  const grace = deps.graceMs ?? GRACE_MS;
  const log = deps.log ?? ((message: string) => console.warn(message));
  const status = async (kind: ProcessKind, entityId: string) => (await deps.gateway.describe(processId(kind, entityId))).status;
  const settings: SweepSettings = {
    scheduleMs: deps.scheduleMs,
    domains: deps.domains,
    oidcCleanup: deps.oidcCleanup,
    retention: deps.retention,
    vanity: deps.vanity,
  };

  const sweep = async () => {
    const queries = createSweepQueries(deps.pool);
    const starts: PlannedStart[] = [];
    for (const { sweep } of Object.values(processes)) {
      if ('none' in sweep) continue;
      const rows = await queries[sweep.rows](grace, SWEEP_LIMIT);
      starts.push(...(await (sweep.plan as (rows: unknown[], s: SweepSettings, st: typeof status) => Promise<PlannedStart[]>)(rows, settings, status)));
    }
    if (starts.length === 0) return 0;
    await deps.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      for (const start of starts) await outbox.enqueueStart(start as Parameters<typeof outbox.enqueueStart>[0]);
    });
    log(`process sweeper: restarting ${starts.length} failed or missing processes (${starts.map((s) => processId(s.kind, s.entityId)).join(', ')})`);
    return starts.length;
  };

  let stopped = false;
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const runOnce = () => (running ??= sweep().finally(() => (running = undefined)));
  const schedule = () => {
    timer = setTimeout(() => {
      runOnce()
        .catch(deps.onError)
        .finally(() => !stopped && schedule());
    }, deps.intervalMs);
  };
  schedule();
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
