// The Temporal worker process (`npm run worker`, the docker compose `worker` service): runs every process's
// workflow code (from the prebuilt bundle) and activities on task queue `iam`, and the event dispatcher that
// turns committed events into delivery processes. In this shape the API only starts and signals processes.
import { startTelemetry, traceLogOptions } from '../lib/telemetry.ts';
import fs from 'node:fs';
import path from 'node:path';
import { Runtime } from '@temporalio/worker';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { createDatabasePool } from '../db/pool.ts';
import { startMetricsListener } from '../lib/metrics/listener.ts';
import { createWorkerRegistry } from '../lib/metrics/worker-registry.ts';
import { BUNDLE_PATH } from './bundle.ts';
import { TASK_QUEUE } from './temporal-gateway.ts';
import { startTemporalProcesses } from './temporal-processes.ts';

/** The configuration this process needs, or a one-line reason it cannot start. */
function workerSettings(): { config: Config; databaseUrl: string; address: string; bundlePath: string } | string {
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
  const bundlePath = config.workflowBundle ?? BUNDLE_PATH;
  if (!fs.existsSync(bundlePath)) return `The workflow bundle ${path.relative(process.cwd(), bundlePath)} is missing: run npm run build:workflows first.`;
  return { config, databaseUrl: config.databaseUrl, address: config.temporalAddress, bundlePath };
}

async function main() {
  const settings = workerSettings();
  if (typeof settings === 'string') {
    console.error(settings);
    process.exit(1);
  }
  const { config, databaseUrl, address, bundlePath } = settings;
  const telemetry = await startTelemetry({ endpoint: config.telemetry.endpoint, serviceName: config.telemetry.serviceName ?? 'iam-worker' });
  const log = pino({ level: config.logLevel, ...traceLogOptions() });

  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir);
  // Off by default; TEMPORAL_METRICS_ADDRESS (host:port) serves the worker's Prometheus metrics at /metrics.
  if (config.temporalMetricsAddress) Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: config.temporalMetricsAddress } } } });
  // WORKER_METRICS_PORT: this worker's own figures (process starts and ends, delivery outcomes, Node), beside the SDK's.
  const metrics = createWorkerRegistry();
  const metricsListener = config.workerMetricsListener
    ? await startMetricsListener(metrics, config.workerMetricsListener, (err) => log.error({ err }, 'metrics scrape failed'))
    : undefined;
  const processes = await startTemporalProcesses({
    config,
    pool,
    metrics: metrics.processes,
    databaseUrl,
    masterKey,
    address,
    namespace: config.temporalNamespace,
    workflowBundle: { codePath: bundlePath },
    onError: (error, what) => log.error({ err: error }, what),
    log: (message) => log.warn(message),
  });

  // Temporal's Runtime traps SIGINT and SIGTERM and drains the worker (`running` then resolves);
  // the dispatcher and the sweeper stop at once so that no new process is started while it drains.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log.info(`${signal}: finishing running activities, then stopping`);
      void processes.stopDispatching();
    });
  }
  log.info({ address, namespace: config.temporalNamespace, taskQueue: TASK_QUEUE }, 'Temporal worker started');
  try {
    await processes.running;
  } finally {
    await processes.stop();
    await metricsListener?.close();
    await pool.end();
    await telemetry?.shutdown();
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
