// A test app with its processes running, on either engine, from the same test code:
// - embedded: DBOS in this process and the dispatcher, as `npm start` has them;
// - temporal: a worker (prebuilt bundle, the activities, as worker/index.ts builds it) and the dispatcher with the
//   Temporal gateway, on the run's Temporal dev server (test/setup/temporal.ts), on a task queue of this app's own
//   so that test files running in parallel never take each other's tasks.
// Process suites run once per engine: `describe.each(ENGINES)(…, (engine) => …)`.
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { inject } from 'vitest';
import type { ProcessMetrics } from '../../lib/metrics/processes.ts';
import type { Dispatcher } from '../../worker/dispatcher.ts';
import { startEmbeddedProcesses } from '../../worker/embedded.ts';
import { startSweeper } from '../../worker/sweeper.ts';
import { startTemporalProcesses } from '../../worker/temporal-processes.ts';
import type { Activities } from '../../workflows/activities.ts';
import type { ProcessGateway } from '../../workflows/port.ts';
import { startTestApp, type TestApp } from './app.ts';

export type Engine = 'embedded' | 'temporal';

/** The engines the process suites run on: Temporal only when the run has a Temporal server (else skipped, said once). */
export const ENGINES: Engine[] = inject('temporal') ? ['embedded', 'temporal'] : ['embedded'];

export interface RunningProcesses {
  /** The engine's gateway, as the dispatcher uses it (describe a process's status…). */
  gateway: ProcessGateway;
  dispatcher: Dispatcher;
  stop(): Promise<void>;
}

export interface TestAppWithProcesses extends TestApp {
  engine: Engine;
  processes: RunningProcesses;
  /** The status of a process, as the engine reports it. */
  processStatus(processId: string): Promise<string>;
  /**
   * Restarts the processes as a service restart would: the embedded engine and its dispatcher, or the Temporal
   * worker and the dispatcher (shut down, then created again on the same task queue).
   */
  restartProcesses(): Promise<void>;
}

/** Millisecond schedules and private targets so deliveries to a local receiver run in a test's time. */
export const FAST_PROCESSES = {
  ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms,300ms',
  WEBHOOK_TIMEOUT_MS: '300',
  BACK_CHANNEL_LOGOUT_SCHEDULE: '0,300ms,300ms',
  DISPATCH_POLL_MS: '200',
};

/** Tests only: wraps the real activities, e.g. to make one fail as a bug would. */
export type WrapActivities = (activities: Activities) => Activities;

export async function startTestAppWithProcesses(
  options: {
    engine?: Engine;
    env?: Record<string, string>;
    wrapActivities?: WrapActivities;
    /** Where the processes are counted: the app's registry unless given (a Temporal worker's own, say). */
    metrics?: ProcessMetrics;
  } = {},
): Promise<TestAppWithProcesses> {
  const engine = options.engine ?? 'embedded';
  const t = await startTestApp({ ...FAST_PROCESSES, ...options.env });
  const onError = (e: unknown) => console.error(e);
  const taskQueue = `iam-test-${randomUUID()}`;
  // Stopping twice is harmless: a test may stop the processes itself (to let work wait) and restart them later.
  const once = (p: RunningProcesses): RunningProcesses => {
    let stopped: Promise<void> | undefined;
    return { ...p, stop: () => (stopped ??= p.stop()) };
  };
  const start = async (): Promise<RunningProcesses> => once(await startEngine());
  const startEngine = (): Promise<RunningProcesses> =>
    engine === 'embedded'
      ? startEmbeddedProcesses({
          config: t.config,
          pool: t.pool,
          databaseUrl: t.databaseUrl,
          masterKey: t.masterKey,
          onError,
          wrapActivities: options.wrapActivities,
          metrics: options.metrics ?? t.app.metrics.processes,
        }).then((p) => ({
          gateway: p.engine.gateway,
          dispatcher: p.dispatcher,
          stop: p.stop,
        }))
      : startTemporalProcessesForTest(t, taskQueue, onError, options.wrapActivities, options.metrics ?? t.app.metrics.processes);
  const result: TestAppWithProcesses = {
    ...t,
    engine,
    processes: await start(),
    processStatus: async (processId) => (await result.processes.gateway.describe(processId)).status,
    restartProcesses: async () => {
      await result.processes.stop();
      result.processes = await start();
    },
    close: async () => {
      await result.processes.stop();
      await t.close();
    },
  };
  return result;
}

let runtimeInstalled = false;

/** The Temporal shape of worker/index.ts (worker/temporal-processes.ts), in this process, on a task queue of its own. */
async function startTemporalProcessesForTest(
  t: TestApp,
  taskQueue: string,
  onError: (e: unknown) => void,
  wrapActivities: WrapActivities | undefined,
  metrics: ProcessMetrics,
): Promise<RunningProcesses> {
  const server = inject('temporal');
  if (!server) throw new Error('No Temporal server in this run (see "Temporal suites skipped" above)');
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new DefaultLogger('WARN') });
  }
  const processes = await startTemporalProcesses({
    config: t.config,
    pool: t.pool,
    databaseUrl: t.databaseUrl,
    masterKey: t.masterKey,
    metrics,
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    workflowBundle: { codePath: server.bundlePath },
    onError,
    wrapActivities,
    stickyQueueTimeoutMs: 1000,
  });
  return { gateway: processes.gateway, dispatcher: processes.dispatcher, stop: processes.stop };
}

/**
 * One round of the sweeper over the test app, as the periodic sweep makes it, with no grace period (every row
 * counts): how many processes it started, and what it logged.
 */
export async function sweepOnce(t: TestAppWithProcesses): Promise<{ started: number; logged: string[] }> {
  const logged: string[] = [];
  const sweeper = startSweeper({
    pool: t.pool,
    gateway: t.processes.gateway,
    scheduleMs: [0],
    domains: { verificationIntervalsMs: [3_600_000], verificationGiveUpMs: 86_400_000 },
    oidcCleanup: t.config.oidcCleanup,
    intervalMs: 3_600_000,
    graceMs: 0,
    onError: () => {},
    log: (message) => logged.push(message),
  });
  try {
    return { started: await sweeper.runOnce(), logged };
  } finally {
    await sweeper.stop();
  }
}
