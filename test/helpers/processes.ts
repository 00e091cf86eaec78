// A test app with its processes running, on either engine, from the same test code:
// - embedded: DBOS in this process and the dispatcher, as `npm start` has them;
// - temporal: a worker (prebuilt bundle, the activities, as worker/index.ts builds it) and the dispatcher with the
//   Temporal gateway, on the run's Temporal dev server (test/setup/temporal.ts), on a task queue of this app's own
//   so that test files running in parallel never take each other's tasks.
// Process suites run once per engine: `describe.each(ENGINES)(…, (engine) => …)`.
import { randomUUID } from 'node:crypto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { startDispatcher, type Dispatcher } from '../../worker/dispatcher.ts';
import { startEmbeddedProcesses } from '../../worker/embedded.ts';
import { createTemporalGateway } from '../../worker/temporal-gateway.ts';
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
  DISPATCH_POLL_MS: '200',
};

export async function startTestAppWithProcesses(options: { engine?: Engine; env?: Record<string, string> } = {}): Promise<TestAppWithProcesses> {
  const engine = options.engine ?? 'embedded';
  const t = await startTestApp({ ...FAST_PROCESSES, ...options.env });
  const onError = (e: unknown) => console.error(e);
  const taskQueue = `iam-test-${randomUUID()}`;
  const start = (): Promise<RunningProcesses> =>
    engine === 'embedded'
      ? startEmbeddedProcesses({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, masterKey: t.masterKey, onError }).then((p) => ({
          gateway: p.engine.gateway,
          dispatcher: p.dispatcher,
          stop: p.stop,
        }))
      : startTemporalProcesses(t, taskQueue, onError);
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

/** The Temporal shape of worker/index.ts, in this process: a worker on `taskQueue` and the dispatcher with the Temporal gateway. */
async function startTemporalProcesses(t: TestApp, taskQueue: string, onError: (e: unknown) => void): Promise<RunningProcesses> {
  const server = inject('temporal');
  if (!server) throw new Error('No Temporal server in this run (see "Temporal suites skipped" above)');
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new DefaultLogger('WARN') });
  }
  const { config } = t;
  const activities = createActivities({
    pool: t.pool,
    masterKey: t.masterKey,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.allowPrivateNetworkTargets,
    disableAfterMs: config.webhooks.disableAfterMs,
    baseUrls: config.providers,
    dnsServers: config.dnsServers,
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection,
    namespace: server.namespace,
    taskQueue,
    workflowBundle: { codePath: server.bundlePath },
    activities,
  });
  const running = worker.run();
  const gateway = await createTemporalGateway({ address: server.address, namespace: server.namespace, taskQueue });
  const dispatcher = await startDispatcher({
    pool: t.pool,
    databaseUrl: t.databaseUrl,
    gateway,
    scheduleMs: config.webhooks.scheduleMs,
    pollMs: config.webhooks.dispatchPollMs,
    onError,
  });
  return {
    gateway,
    dispatcher,
    stop: async () => {
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await gateway.close();
      await connection.close();
    },
  };
}
