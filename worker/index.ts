// The Temporal worker process (`npm run worker`, the docker compose `worker` service): runs every process's
// workflow code (from the prebuilt bundle) and activities on task queue `iam`, and the event dispatcher that
// turns committed events into delivery processes. In this shape the API only starts and signals processes.
import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { createActivities } from '../activities/index.ts';
import { ConfigError, loadConfig, type Config } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { temporalConnectionOptions } from '../lib/temporal-connection.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createProcessScopeQueries } from '../db/processes/scopes.ts';
import { BUNDLE_PATH } from './bundle.ts';
import { deliveryBatchSize, startDispatcher } from './dispatcher.ts';
import { startSweeper } from './sweeper.ts';
import { activityProgressInterceptor, temporalActivityProgress } from './temporal-activity-context.ts';
import { createTemporalGateway, TASK_QUEUE } from './temporal-gateway.ts';

/** The configuration this process needs, or a one-line reason it cannot start. */
function workerSettings(): { config: Config; databaseUrl: string; address: string } | string {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  if (config.processEngine !== 'temporal' || !config.temporalAddress) {
    return 'The worker runs only with PROCESS_ENGINE=temporal and TEMPORAL_ADDRESS set (the embedded engine runs inside npm start).';
  }
  if (!config.databaseUrl) return 'Invalid configuration: DATABASE_URL is required by the worker (the Postgres the API uses).';
  if (!config.masterKey && !fs.existsSync(path.join(config.dataDir, 'master.key'))) {
    return 'Invalid configuration: MASTER_KEY is required by the worker (the key the API encrypts secrets with).';
  }
  if (!fs.existsSync(BUNDLE_PATH)) return `The workflow bundle ${path.relative(process.cwd(), BUNDLE_PATH)} is missing: run npm run build:workflows first.`;
  return { config, databaseUrl: config.databaseUrl, address: config.temporalAddress };
}

async function main() {
  const settings = workerSettings();
  if (typeof settings === 'string') {
    console.error(settings);
    process.exit(1);
  }
  const { config, databaseUrl, address } = settings;
  const log = pino({ level: config.logLevel });

  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir);
  const activities = createActivities({
    pool,
    masterKey,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: config.allowPrivateNetworkTargets,
    disableAfterMs: config.webhooks.disableAfterMs,
    baseUrls: config.providers,
    dnsServers: config.dnsServers,
    progress: temporalActivityProgress,
  });
  // Off by default; TEMPORAL_METRICS_ADDRESS (host:port) serves the worker's Prometheus metrics at /metrics.
  if (config.temporalMetricsAddress) Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: config.temporalMetricsAddress } } } });
  const tlsAndKey = temporalConnectionOptions(config);
  const connection = await NativeConnection.connect({ address, ...tlsAndKey });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: BUNDLE_PATH },
    activities,
    interceptors: { activity: [activityProgressInterceptor] },
    // On SIGTERM running activities get this long to finish, then are cancelled (a batch records what it sent);
    // docker compose's stop_grace_period is longer, so the worker is never killed mid-drain.
    shutdownGraceTime: config.workerShutdownGraceMs,
  });
  const scopes = createProcessScopeQueries(pool);
  const gateway = await createTemporalGateway({ address, namespace: config.temporalNamespace, scopeOf: scopes.scopeOf, ...tlsAndKey });
  const dispatcher = await startDispatcher({
    pool,
    databaseUrl,
    gateway,
    scheduleMs: config.webhooks.scheduleMs,
    pollMs: config.webhooks.dispatchPollMs,
    batchSize: config.webhooks.batchSize ?? deliveryBatchSize(config.webhooks.timeoutMs),
    onError: (error) => log.error({ err: error }, 'event dispatch failed'),
    log: (message) => log.warn(message),
  });
  const sweeper = startSweeper({
    pool,
    gateway,
    scheduleMs: config.webhooks.scheduleMs,
    domains: config.domains,
    intervalMs: config.processSweepIntervalMs,
    onError: (error) => log.error({ err: error }, 'process sweep failed'),
    log: (message) => log.warn(message),
  });

  // Temporal's Runtime traps SIGINT and SIGTERM and drains the worker (worker.run() then resolves);
  // the dispatcher stops at once so that no new process is started while it drains.
  let dispatcherStopped: Promise<void> | undefined;
  const stopDispatcher = () => (dispatcherStopped ??= Promise.all([sweeper.stop(), dispatcher.stop()]).then(() => {}));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log.info(`${signal}: finishing running activities, then stopping`);
      void stopDispatcher();
    });
  }
  log.info({ address, namespace: config.temporalNamespace, taskQueue: TASK_QUEUE }, 'Temporal worker started');
  try {
    await worker.run();
  } finally {
    await stopDispatcher();
    await gateway.close();
    await connection.close();
    await pool.end();
    log.info('stopped');
  }
}

// Exit once drained even if an idle keep-alive socket or timer of a library would hold the process open.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
