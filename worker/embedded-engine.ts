// The embedded process engine: DBOS Transact on the service's own Postgres (schema `dbos`).
// Each process is registered once as a DBOS workflow named by its kind; steps, sleeps and messages are
// checkpointed, so a restart resumes every process where it stopped.
import { setTimeout as wait } from 'node:timers/promises';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Activities } from '../workflows/activities.ts';
import { RESTARTED_WHEN_COMPLETED } from '../lib/processes/contracts.ts';
import { processes } from '../workflows/index.ts';
import { currentTraceparent, inSpan } from '../lib/telemetry.ts';
import { NO_PROCESS_METRICS, type ProcessMetrics } from '../lib/metrics/processes.ts';
import {
  isRetryable,
  retryDelayMs,
  type ActivityName,
  type ProcessContext,
  type ProcessDescription,
  type ProcessGateway,
  type ProcessKind,
  type RetryOptions,
} from '../workflows/port.ts';

// DBOS resumes pending workflows only for the same application version; bump it only with a migration plan.
export const APPLICATION_VERSION = 'iam-processes-1';

/**
 * Runs `attempt` until it succeeds, retried as `retry` says (no retry given: once): the same RetryOptions as
 * Temporal's RetryPolicy, programming errors not retried. The whole loop is one DBOS step, checkpointed when it
 * ends; a restart in the middle runs the step again from its first attempt. Once `stopping` aborts (the engine
 * stops), a waiting loop never settles, so that nothing is recorded for the step and recovery runs it again.
 */
export async function runWithRetries<T>(attempt: () => Promise<T>, retry: RetryOptions | undefined, stopping?: AbortSignal): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = retry && isRetryable(error) ? retryDelayMs(retry, n) : null;
      if (delay === null) throw error;
      try {
        await wait(delay, undefined, { signal: stopping });
      } catch {
        return new Promise<never>(() => {});
      }
    }
  }
}

function dbosContext<Topics extends object>(
  activities: Activities,
  adjust: (retry: RetryOptions) => RetryOptions,
  stopping: AbortSignal,
): ProcessContext<Topics> {
  return {
    run: (name, input, retry?: RetryOptions) =>
      DBOS.runStep(
        () =>
          inSpan(`activity ${String(name)}`, () =>
            runWithRetries(() => (activities[name as ActivityName] as (i: unknown) => Promise<never>)(input), retry && adjust(retry), stopping),
          ),
        { name: String(name) },
      ),
    sleep: (ms) => DBOS.sleep(ms),
    receive: async <T extends keyof Topics & string>(topic: T, timeoutMs: number) =>
      (await DBOS.recv<Topics[T]>(topic, { timeoutSeconds: timeoutMs / 1000 })) ?? undefined,
    now: () => DBOS.now(),
    patched: (id) => DBOS.patch(id),
  };
}

/**
 * DBOS sets idle_in_transaction_session_timeout with a query of its own on each new connection, racing the borrower's
 * first query on the same connection (pg's "already executing a query" warning, an error in pg 9). Set in the URL's
 * startup options instead (DBOS then leaves it alone), with DBOS's default of one minute.
 */
export function withIdleTransactionTimeout(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get('options') ?? '';
  if (!options.includes('idle_in_transaction_session_timeout')) {
    url.searchParams.set('options', `${options} -c idle_in_transaction_session_timeout=60000`.trim());
  }
  return url.toString();
}

/** The statuses of a DBOS workflow that has ended: its record is history. */
const FINISHED = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'] as const;

/**
 * Deletes up to `limit` records (status, input, output, steps, messages, events) of workflows that finished before
 * `before`, oldest first; returns how many. The retention process calls it (PROCESS_HISTORY_RETENTION): without it, the
 * `dbos` schema keeps every process that ever ran. A process id whose record went starts a new process, as on Temporal
 * once the namespace's retention period has passed.
 */
export async function pruneFinishedWorkflows(before: Date, limit: number): Promise<number> {
  const finished = await DBOS.listWorkflows({
    status: [...FINISHED],
    completedBefore: before.toISOString(),
    limit,
    loadInput: false,
    loadOutput: false,
  });
  if (finished.length > 0) await DBOS.deleteWorkflows(finished.map((w) => w.workflowID));
  return finished.length;
}

/** Process logic as the engine registers it: each one's context is typed by its own topics, which DBOS carries as they come. */
type Logic = (ctx: ProcessContext<object>, input: never) => Promise<unknown>;

let registered: Record<string, (input: never, traceContext?: string | null) => Promise<unknown>> | undefined;

export interface EmbeddedEngine {
  gateway: ProcessGateway;
  stop(): Promise<void>;
}

/** Launches DBOS in this process. DBOS is a process-wide singleton: one engine per process at a time. */
export async function startEmbeddedEngine(options: {
  databaseUrl: string;
  activities: Activities;
  logLevel?: string;
  /** For tests: adjusts the retry options of every activity (shorter intervals). */
  adjustRetry?: (retry: RetryOptions) => RetryOptions;
  /** Counts the processes that end here, completed or failed. */
  metrics?: ProcessMetrics;
}): Promise<EmbeddedEngine> {
  const metrics = options.metrics ?? NO_PROCESS_METRICS;
  const stopping = new AbortController();
  DBOS.setConfig({
    name: 'iam',
    systemDatabaseUrl: withIdleTransactionTimeout(options.databaseUrl),
    systemDatabaseSchemaName: 'dbos',
    systemDatabasePoolSize: 5,
    applicationVersion: APPLICATION_VERSION,
    // ctx.patched() (DBOS.patch): the applicationVersion stays pinned, so pending processes are still recovered.
    enablePatching: true,
    logLevel: options.logLevel ?? 'warn',
  });
  registered = Object.fromEntries(
    Object.entries(processes).map(([kind, { logic }]) => [
      kind,
      DBOS.registerWorkflow(
        // The trace context is the workflow's second input, checkpointed with it: a resumed process joins the same trace.
        (input: never, traceContext?: string | null): Promise<unknown> =>
          inSpan(`process ${kind}`, () => (logic as Logic)(dbosContext(options.activities, options.adjustRetry ?? ((r) => r), stopping.signal), input), {
            traceparent: traceContext,
          }).then(
            (output) => {
              metrics.ended(kind, 'completed');
              return output;
            },
            (error: unknown) => {
              metrics.ended(kind, 'failed');
              throw error;
            },
          ),
        // The kind is the DBOS workflow's name: never renamed, it identifies the processes recovery resumes.
        { name: kind },
      ),
    ]),
  );
  await DBOS.launch();

  const gateway: ProcessGateway = {
    start: async (kind: ProcessKind, processId, input) => {
      const workflow = registered?.[kind];
      if (!workflow) throw new Error(`unknown process kind ${kind}`);
      // Starting an id that exists returns the existing workflow: process ids are idempotency keys. A failed one
      // is started again (as Temporal's ALLOW_DUPLICATE_FAILED_ONLY): its record goes, and a new run takes the id.
      const status = (await DBOS.getWorkflowStatus(processId))?.status;
      if (status === 'PENDING' || status === 'ENQUEUED') return; // running: nothing to start
      if (status === 'ERROR' || status === 'MAX_RECOVERY_ATTEMPTS_EXCEEDED') await DBOS.deleteWorkflow(processId);
      // A kind that ends when idle starts a new run over a completed one (as Temporal's ALLOW_DUPLICATE).
      else if (status === 'SUCCESS' && RESTARTED_WHEN_COMPLETED.includes(kind)) await DBOS.deleteWorkflow(processId);
      await DBOS.startWorkflow(workflow, { workflowID: processId })(input as never, currentTraceparent());
    },
    signal: (_kind, processId, topic, payload) => DBOS.send(processId, payload, topic),
    describe: async (processId): Promise<ProcessDescription> => {
      const status = await DBOS.getWorkflowStatus(processId);
      const map: Record<string, ProcessDescription['status']> = {
        PENDING: 'running',
        ENQUEUED: 'running',
        SUCCESS: 'completed',
        ERROR: 'failed',
        CANCELLED: 'cancelled',
        MAX_RECOVERY_ATTEMPTS_EXCEEDED: 'failed',
      };
      return { processId, status: status ? (map[status.status] ?? 'unknown') : 'unknown' };
    },
    cancel: (processId) => DBOS.cancelWorkflow(processId),
  };
  return {
    gateway,
    stop: async () => {
      stopping.abort();
      await DBOS.shutdown({ deregister: true });
      registered = undefined;
      // DBOS retires its LISTEN connection without awaiting the close; give it a moment before the
      // caller stops Postgres, so shutdown logs no spurious "connection terminated" warnings.
      await new Promise((resolve) => setTimeout(resolve, 250));
    },
  };
}
