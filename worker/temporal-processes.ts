// The Temporal shape of the processes, as one unit: a worker running the bundled workflows and the activities,
// the gateway that starts and signals them, the event dispatcher and the sweeper. `npm run worker`
// (worker/index.ts) runs it on task queue `iam`; the process tests run the same assembly on a queue of their own.
import { NativeConnection, Worker } from '@temporalio/worker';
import type { DatabasePool } from 'slonik';
import { createActivities } from '../activities/index.ts';
import { createOidcCleanupSingletonQueries } from '../db/oidc/cleanup/singleton.ts';
import { createRetentionQueries } from '../db/processes/retention.ts';
import { createProcessScopeQueries } from '../db/processes/scopes.ts';
import type { Config } from '../lib/config.ts';
import { temporalConnectionOptions } from '../lib/temporal-connection.ts';
import type { Activities } from '../workflows/activities.ts';
import type { ProcessMetrics } from '../lib/metrics/processes.ts';
import { deliveryBatchSize, startDispatcher, type Dispatcher } from './dispatcher.ts';
import { startSweeper, type Sweeper } from './sweeper.ts';
import { activityProgressInterceptor, temporalActivityProgress } from './temporal-activity-context.ts';
import { createTemporalGateway, TASK_QUEUE, type TemporalGateway } from './temporal-gateway.ts';
import { tracingActivityInterceptors, workerSinks } from './temporal-telemetry.ts';

export interface TemporalProcesses {
  worker: Worker;
  gateway: TemporalGateway;
  dispatcher: Dispatcher;
  sweeper: Sweeper;
  /** Resolves once the worker has shut down and drained (on SIGINT/SIGTERM through Temporal's Runtime, or `stop`). */
  running: Promise<void>;
  /** Stops starting new processes (dispatcher and sweeper), at once; the worker drains meanwhile. */
  stopDispatching(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTemporalProcesses(deps: {
  config: Config;
  pool: DatabasePool;
  databaseUrl: string;
  masterKey: Buffer;
  address: string;
  namespace: string;
  taskQueue?: string;
  workflowBundle: { codePath: string };
  onError: (error: unknown, what: string) => void;
  log?: (message: string) => void;
  /** Tests only: wraps the activities (to make one fail as a bug would). */
  wrapActivities?: (activities: Activities) => Activities;
  /** Where process starts, ends and delivery outcomes are counted (lib/metrics/processes.ts). */
  metrics?: ProcessMetrics;
  /**
   * Tests only: how long a workflow task waits on this worker's sticky queue before any worker may take it (the
   * SDK's default is 10 s). A worker that was shut down leaves its sticky queue behind, so a restart in a test
   * would otherwise hold up the next task of every workflow it ran by that long.
   */
  stickyQueueTimeoutMs?: number;
}): Promise<TemporalProcesses> {
  const { config, pool } = deps;
  const activities = createActivities({
    pool,
    masterKey: deps.masterKey,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.allowPrivateNetworkTargets,
    disableAfterMs: config.webhooks.disableAfterMs,
    baseUrls: config.providers,
    dnsServers: config.dnsServers,
    oidcCleanup: config.oidcCleanup,
    retention: config.retention,
    vanityAcme: config.vanity.acme,
    metrics: deps.metrics,
    progress: temporalActivityProgress,
  });
  const tlsAndKey = temporalConnectionOptions(config);
  const taskQueue = deps.taskQueue ?? TASK_QUEUE;
  const connection = await NativeConnection.connect({ address: deps.address, ...tlsAndKey });
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue,
    workflowBundle: deps.workflowBundle,
    activities: deps.wrapActivities ? deps.wrapActivities(activities) : activities,
    // With tracing on (lib/telemetry.ts), each activity runs in a span joining its workflow's trace.
    interceptors: { activity: [...(await tracingActivityInterceptors()), activityProgressInterceptor] },
    // Process ends counted into `metrics`, and workflow spans, from the bundled workflow interceptors.
    sinks: workerSinks(deps.metrics),
    // On SIGTERM running activities get this long to finish, then are cancelled (a batch records what it sent);
    // docker compose's stop_grace_period is longer, so the worker is never killed mid-drain.
    shutdownGraceTime: config.workerShutdownGraceMs,
    ...(deps.stickyQueueTimeoutMs ? { stickyQueueScheduleToStartTimeout: deps.stickyQueueTimeoutMs } : {}),
  });
  const running = worker.run();
  const gateway = await createTemporalGateway({
    address: deps.address,
    namespace: deps.namespace,
    taskQueue,
    scopeOf: createProcessScopeQueries(pool).scopeOf,
    ...tlsAndKey,
  });
  // The deployment's singleton processes start at boot (a no-op while they run).
  await createOidcCleanupSingletonQueries(pool).enqueueStart(config.oidcCleanup);
  await createRetentionQueries(pool).enqueueStart(config.retention);
  const dispatcher = await startDispatcher({
    pool,
    databaseUrl: deps.databaseUrl,
    gateway,
    scheduleMs: config.webhooks.scheduleMs,
    pollMs: config.webhooks.dispatchPollMs,
    batchSize: config.webhooks.batchSize ?? deliveryBatchSize(config.webhooks.timeoutMs),
    limits: config.webhooks.limits,
    metrics: deps.metrics,
    onError: (error) => deps.onError(error, 'event dispatch failed'),
    log: deps.log,
  });
  const sweeper = startSweeper({
    pool,
    gateway,
    scheduleMs: config.webhooks.scheduleMs,
    domains: config.domains,
    vanity: config.vanity.timings,
    oidcCleanup: config.oidcCleanup,
    retention: config.retention,
    intervalMs: config.processSweepIntervalMs,
    onError: (error) => deps.onError(error, 'process sweep failed'),
    log: deps.log,
  });
  let dispatchingStopped: Promise<void> | undefined;
  const stopDispatching = () => (dispatchingStopped ??= Promise.all([sweeper.stop(), dispatcher.stop()]).then(() => {}));
  return {
    worker,
    gateway,
    dispatcher,
    sweeper,
    running,
    stopDispatching,
    stop: async () => {
      await stopDispatching();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await gateway.close();
      await connection.close();
    },
  };
}
