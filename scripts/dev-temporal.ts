// `npm run dev:temporal`: the Temporal shape on one machine, in one command. Starts a Temporal dev server (Web UI
// on TEMPORAL_UI_PORT, default 8233; data in DATA_DIR/temporal/temporal.db; every search attribute the workflows
// use registered), Postgres (embedded in DATA_DIR/pg unless DATABASE_URL is set), the API (`node api/server.ts`,
// which applies the migrations) and then the worker (`node worker/index.ts`), both with PROCESS_ENGINE=temporal.
// Ctrl-C stops the worker and the API (each drains), then the Temporal server and Postgres.
// The Temporal CLI is found or installed as `npm run temporal:install` does (scripts/temporal-cli.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { loadConfig } from '../lib/config.ts';
import { BUNDLE_PATH, bundleWorkflows } from '../worker/bundle.ts';
import { findOrInstallTemporal, startDevServer, type DevServer } from './temporal-cli.ts';

const root = path.resolve(import.meta.dirname, '..');
const config = loadConfig({ ...process.env, PROCESS_ENGINE: 'temporal', TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const address = config.temporalAddress!;
const [temporalHost, temporalPort] = address.split(':') as [string, string];
const uiPort = process.env.TEMPORAL_UI_PORT ?? '8233';
const say = (message: string) => console.log(`[dev:temporal] ${message}`);

const children: { name: string; child: ChildProcess; exited: Promise<void> }[] = [];
let embedded: EmbeddedDatabase | undefined;
let temporalServer: DevServer | undefined;

/** Runs a child in its own process group: Ctrl-C reaches this script only, which stops the children in order. */
function run(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(command, args, { cwd: root, env, stdio: 'inherit', detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  children.push({ name, child, exited });
  void exited.then(() => {
    if (!stopping) {
      say(`${name} exited (code ${child.exitCode ?? child.signalCode}): stopping the others`);
      void stop(1);
    }
  });
  return child;
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (stopping) throw new Error('stopping');
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let stopping: Promise<void> | undefined;
const stop = (code: number) =>
  (stopping ??= (async () => {
    say('stopping: worker, API, Temporal server, Postgres');
    // Worker and API drain on SIGTERM; the Temporal server last but one, as they still talk to it while draining.
    for (const name of ['worker', 'api']) {
      const entry = children.find((c) => c.name === name);
      if (!entry || entry.child.exitCode !== null || entry.child.signalCode !== null) continue;
      entry.child.kill('SIGTERM');
      const timer = setTimeout(() => entry.child.kill('SIGKILL'), 30_000);
      await entry.exited;
      clearTimeout(timer);
    }
    await temporalServer?.stop();
    await embedded?.stop();
    say('stopped');
    process.exit(code);
  })());

process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

try {
  const temporal = findOrInstallTemporal(say);
  const temporalDir = path.join(config.dataDir, 'temporal');
  fs.mkdirSync(temporalDir, { recursive: true });
  say(`Temporal dev server on ${address}, Web UI on http://127.0.0.1:${uiPort} (data in ${temporalDir})`);
  temporalServer = await startDevServer({
    cli: temporal,
    ip: temporalHost,
    port: Number(temporalPort),
    uiPort: Number(uiPort),
    dbFilename: path.join(temporalDir, 'temporal.db'),
    namespace: config.temporalNamespace,
    output: 'inherit',
    detached: true,
  });
  temporalServer.process.once('exit', () => {
    if (!stopping) {
      say('Temporal server exited: stopping the others');
      void stop(1);
    }
  });

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'pg') });
    databaseUrl = embedded.url;
  }

  const { code } = await bundleWorkflows();
  fs.mkdirSync(path.dirname(BUNDLE_PATH), { recursive: true });
  fs.writeFileSync(BUNDLE_PATH, code);

  const env = {
    // A development machine: webhooks to local receivers are allowed unless said otherwise.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    ...process.env,
    PROCESS_ENGINE: 'temporal',
    TEMPORAL_ADDRESS: address,
    DATABASE_URL: databaseUrl,
    DATA_DIR: config.dataDir,
  };
  run('api', process.execPath, ['api/server.ts'], env);
  const health = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/v1/health`;
  await waitFor('API', () =>
    fetch(health).then(
      (r) => r.ok,
      () => false,
    ),
  );
  // After the API: it applied the migrations and wrote DATA_DIR/master.key (unless MASTER_KEY is set).
  run('worker', process.execPath, ['worker/index.ts'], env);
  say(
    `ready: API ${config.publicBaseUrl}, Temporal UI http://127.0.0.1:${uiPort}, bootstrap credentials in ${path.join(config.dataDir, 'bootstrap.json')}. Ctrl-C stops all.`,
  );
} catch (error) {
  if (!stopping) {
    console.error(error instanceof Error ? error.message : error);
    await stop(1);
  }
}
