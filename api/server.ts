// The `npm start` process: configuration, database (embedded unless DATABASE_URL is set), migrations,
// bootstrap, signing keys, the HTTP API; an orderly shutdown on SIGINT/SIGTERM.
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from '../lib/config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabasePool } from '../db/pool.ts';
import { REDACTED_PATHS } from './app.ts';
import { startEmbeddedProcesses } from '../worker/embedded.ts';
import { assembleApp } from './assemble.ts';
import { temporalProbe } from '../worker/temporal-probe.ts';
import { startMetricsListener } from '../lib/metrics/listener.ts';
import { temporalConnectionOptions } from '../lib/temporal-connection.ts';

const assertRunning = (trouble: string | null) => {
  if (trouble) throw new Error(trouble);
};
import { startTelemetry, traceLogOptions } from '../lib/telemetry.ts';
import { startVanityHttps } from './vanity/https-listener.ts';
import { compactHeap } from '../lib/heap-compaction.ts';

export async function startServer(config: Config) {
  // Before the pool and the app: both add their spans only when tracing is on.
  const telemetry = await startTelemetry({ endpoint: config.telemetry.endpoint, serviceName: config.telemetry.serviceName ?? 'iam-api' });
  const log = pino({ level: config.logLevel, redact: REDACTED_PATHS, ...traceLogOptions() });
  const started = Date.now();
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const pgLog = log.child({ component: 'postgres' });
    embedded = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'pg'), log: (m) => pgLog.debug(m), notice: (m) => log.info(m) });
    databaseUrl = embedded.url;
    log.info({ dataDir: config.dataDir }, 'embedded Postgres started');
  }
  const { applied } = await migrate(databaseUrl);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  const {
    app,
    masterKey,
    bootstrap: { file, created },
  } = await assembleApp(config, pool, databaseUrl, { level: config.logLevel, redact: REDACTED_PATHS, ...traceLogOptions() });
  if (created) log.info({ file }, 'first start: bootstrap credentials written');
  // In the Temporal shape the worker processes run the dispatcher and the activities; here, this process does.
  const processes =
    config.processEngine === 'embedded'
      ? await startEmbeddedProcesses({
          config,
          pool,
          databaseUrl,
          masterKey,
          metrics: app.metrics.processes,
          onError: (err) => log.error({ err }, 'dispatcher round failed'),
        })
      : undefined;
  if (processes) app.readiness.add({ name: 'dispatcher', check: async () => assertRunning(processes.dispatcher.trouble()) });
  const temporal =
    config.processEngine === 'temporal'
      ? temporalProbe({ address: config.temporalAddress!, namespace: config.temporalNamespace, ...temporalConnectionOptions(config) })
      : undefined;
  if (temporal) app.readiness.add(temporal);
  // Before the first request: start-up's garbage goes back to the system (lib/heap-compaction.ts).
  compactHeap();
  await app.listen({ host: config.host, port: config.port });
  const metricsListener = config.metricsListener
    ? await startMetricsListener(app.metrics, config.metricsListener, (err) => log.error({ err }, 'metrics scrape failed'))
    : undefined;
  // TLS for active vanity domains, by SNI (off unless HTTPS_PORT is set).
  const https = config.vanity.httpsPort === undefined ? undefined : await startVanityHttps(app, { host: config.host, port: config.vanity.httpsPort });
  if (https) log.info({ port: https.port }, 'HTTPS listener for vanity domains started');
  log.info(
    { url: config.publicBaseUrl, credentials: file, startupMs: Date.now() - started },
    `listening on ${config.publicBaseUrl} (bootstrap credentials: ${file})`,
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Not ready first, so the load balancer stops sending requests; then the in-flight ones finish, and the
      // dispatcher hands back the outbox entries it holds before the pool closes.
      app.readiness.drain();
      if (config.shutdownDrainDelayMs > 0) {
        log.info({ delayMs: config.shutdownDrainDelayMs }, 'shutting down: answering not ready');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainDelayMs));
      }
      log.info('shutting down: finishing in-flight requests');
      await https?.close();
      await app.close();
      await metricsListener?.close();
      await processes?.stop();
      await temporal?.close();
      await pool.end();
      await embedded?.stop();
      await telemetry?.shutdown(); // exports the spans still buffered
      log.info('stopped');
    })());
  return { app, stop, databaseUrl };
}

async function main() {
  let config: Config;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    config = loadConfig();
    server = await startServer(config);
  } catch (error) {
    // A setting the operator must change (a variable, a folder's permissions): one line saying what, no stack trace.
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
