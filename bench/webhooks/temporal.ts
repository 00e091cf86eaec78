// The same deliveries on Temporal: a local Temporal dev server started here (in memory, every search attribute
// registered), and in this process a worker running the bundled workflows and the activities plus the event
// dispatcher starting processes through the Temporal gateway, as `npm run worker` does. The embedded engine is
// stopped meanwhile, so the two never share the work. Needs the Temporal CLI (`npm run temporal:install`).
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { DatabasePool } from 'slonik';
import { createActivities } from '../../activities/index.ts';
import { createProcessScopeQueries } from '../../db/processes/scopes.ts';
import type { Config } from '../../lib/config.ts';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { startDispatcher, type Dispatcher } from '../../worker/dispatcher.ts';
import { createTemporalGateway, type TemporalGateway } from '../../worker/temporal-gateway.ts';
import { workerSinks } from '../../worker/temporal-telemetry.ts';
import { findTemporal, freePort, startDevServer } from '../../scripts/temporal-cli.ts';

export interface TemporalEngine {
  address: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server (cleanups stop it); the worker and dispatcher run between `start()` and `stop()`. Undefined without the CLI. */
export async function startTemporalEngine(
  deps: { config: Config; pool: DatabasePool; databaseUrl: string; masterKey: Buffer },
  cleanups: (() => Promise<unknown>)[],
): Promise<TemporalEngine | undefined> {
  const cli = findTemporal();
  if (!cli) return undefined;
  const server = await startDevServer({ cli, port: await freePort() });
  cleanups.push(() => server.stop());
  const { address } = server;

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { config, pool, databaseUrl, masterKey } = deps;
  const workflowBundle = await bundleWorkflows();
  const activities = createActivities({
    pool,
    masterKey,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivate: true,
    disableAfterMs: config.webhooks.disableAfterMs,
    baseUrls: config.providers,
    dnsServers: config.dnsServers,
  });
  let running: { connection: NativeConnection; worker: Worker; run: Promise<void>; gateway: TemporalGateway; dispatcher: Dispatcher } | undefined;

  return {
    address,
    start: async () => {
      if (running) return;
      const connection = await NativeConnection.connect({ address });
      const worker = await Worker.create({ connection, namespace: 'default', taskQueue: 'iam', workflowBundle, activities, sinks: workerSinks() });
      const run = worker.run();
      const gateway = await createTemporalGateway({ address, namespace: 'default', scopeOf: createProcessScopeQueries(pool).scopeOf });
      const dispatcher = await startDispatcher({
        pool,
        databaseUrl,
        gateway,
        scheduleMs: config.webhooks.scheduleMs,
        pollMs: config.webhooks.dispatchPollMs,
        onError: (error) => console.error('dispatcher round failed (Temporal):', error),
      });
      running = { connection, worker, run, gateway, dispatcher };
    },
    stop: async () => {
      if (!running) return;
      const { connection, worker, run, gateway, dispatcher } = running;
      running = undefined;
      await dispatcher.stop();
      worker.shutdown();
      await run;
      await gateway.close();
      await connection.close();
    },
  };
}
