// The same deliveries on Temporal: a local Temporal dev server started here (in memory, every search attribute
// registered), and in this process a worker running the bundled workflows and the activities plus the event
// dispatcher starting processes through the Temporal gateway, as `npm run worker` does. The embedded engine is
// stopped meanwhile, so the two never share the work. Needs the Temporal CLI (.temporal/bin/temporal or on PATH).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { DatabasePool } from 'slonik';
import { createActivities } from '../../activities/index.ts';
import { createProcessScopeQueries } from '../../db/processes/scopes.ts';
import type { Config } from '../../lib/config.ts';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { startDispatcher, type Dispatcher } from '../../worker/dispatcher.ts';
import { createTemporalGateway, type TemporalGateway } from '../../worker/temporal-gateway.ts';
import { cliTypeOf, SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';

const root = path.resolve(import.meta.dirname, '../..');

function temporalCli(): string | undefined {
  const local = path.join(root, '.temporal/bin/temporal');
  if (fs.existsSync(local)) return local;
  return spawnSync('temporal', ['--version'], { stdio: 'ignore' }).status === 0 ? 'temporal' : undefined;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

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
  const cli = temporalCli();
  if (!cli) return undefined;
  const address = `127.0.0.1:${await freePort()}`;
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', address.split(':')[1]!, '--namespace', 'default', '--log-level', 'error'];
  const server = spawn(cli, [...args, ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${cliTypeOf(key)}`])], { stdio: 'ignore' });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  cleanups.push(async () => {
    server.kill('SIGTERM');
    await exited;
  });
  const deadline = Date.now() + 60_000;
  while (spawnSync(cli, ['operator', 'cluster', 'health', '--address', address], { stdio: 'ignore' }).status !== 0) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the Temporal dev server at ${address} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

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
      const worker = await Worker.create({ connection, namespace: 'default', taskQueue: 'iam', workflowBundle, activities });
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
