// Several instances of the Temporal shape on one machine, as child processes: API instances (`node api/server.ts`)
// and workers (`node worker/index.ts`) over one Postgres database and one Temporal server, with the same master
// key and bootstrap credentials. Any of them can be killed (SIGKILL) and started again on its own port.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/temporal-cli.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface ClusterOptions {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  /** The prebuilt workflow bundle (WORKFLOW_BUNDLE). */
  bundlePath: string;
  apis: number;
  workers: number;
  /** Extra environment of every instance (rate limits, retry schedules…). */
  env?: Record<string, string>;
}

export interface Instance {
  name: string;
  kind: 'api' | 'worker';
  /** The API's HTTP port, or the worker's Prometheus metrics port. */
  port: number;
  url: string;
  child: ChildProcess | undefined;
  /** The last lines it wrote, for the message of a failed start. */
  output: string[];
}

export interface Cluster {
  apis: Instance[];
  workers: Instance[];
  clientId: string;
  clientSecret: string;
  /** SIGKILL: no drain, no lease handed back. */
  kill(instance: Instance): Promise<void>;
  /** Starts it again on the same port and waits until it is ready. */
  start(instance: Instance): Promise<void>;
  close(): Promise<void>;
}

const ready = async (instance: Instance, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const child = instance.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${instance.name} exited while starting:\n${instance.output.join('\n')}`);
    }
    // A worker is ready once it polls its task queue (the SDK logs so at INFO, the worker itself too); an API once /v1/health/ready answers 200.
    if (
      instance.kind === 'worker'
        ? instance.output.some((l) => l.includes('Temporal worker started') || l.includes("state: 'RUNNING'"))
        : await healthy(instance.url)
    )
      return;
    if (Date.now() > deadline) throw new Error(`${instance.name} not ready after ${timeoutMs} ms:\n${instance.output.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const healthy = (url: string) =>
  fetch(`${url}/v1/health/ready`).then(
    (r) => r.ok,
    () => false,
  );

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-scale-'));
  const clientId = 'scale-bootstrap';
  const clientSecret = `adsa_${randomBytes(16).toString('hex')}`;
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    PROCESS_ENGINE: 'temporal',
    TEMPORAL_ADDRESS: options.temporalAddress,
    TEMPORAL_NAMESPACE: options.namespace,
    WORKFLOW_BUNDLE: options.bundlePath,
    DATABASE_URL: options.databaseUrl,
    DATABASE_POOL_SIZE: '5',
    DATA_DIR: dataDir,
    MASTER_KEY: randomBytes(32).toString('hex'),
    BOOTSTRAP_CLIENT_ID: clientId,
    BOOTSTRAP_CLIENT_SECRET: clientSecret,
    HOST: '127.0.0.1',
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    LOG_LEVEL: 'info',
    SHUTDOWN_DRAIN_DELAY: '0s',
    ...options.env,
  };
  const make = async (kind: Instance['kind'], i: number): Promise<Instance> => {
    const port = await freePort();
    return { name: `${kind}-${i + 1}`, kind, port, url: `http://127.0.0.1:${port}`, child: undefined, output: [] };
  };
  const apis = await Promise.all(Array.from({ length: options.apis }, (_, i) => make('api', i)));
  const workers = await Promise.all(Array.from({ length: options.workers }, (_, i) => make('worker', i)));

  // Behind a load balancer every instance has the same public address: it is the issuer of the access tokens, so an
  // instance with its own (the default, http://HOST:PORT) refuses the tokens the others issue.
  const publicBaseUrl = apis[0]!.url;

  const start = async (instance: Instance) => {
    const own = instance.kind === 'api' ? { PORT: String(instance.port) } : { TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${instance.port}` };
    const env = { ...common, PUBLIC_BASE_URL: publicBaseUrl, ...own };
    const script = instance.kind === 'api' ? 'api/server.ts' : 'worker/index.ts';
    instance.output = [];
    const child = spawn(process.execPath, [script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line) instance.output.push(line);
      if (instance.output.length > 40) instance.output.splice(0, instance.output.length - 40);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    instance.child = child;
    await ready(instance, 60_000);
  };
  const kill = async (instance: Instance) => {
    const child = instance.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  const cluster: Cluster = {
    apis,
    workers,
    clientId,
    clientSecret,
    kill,
    start,
    close: async () => {
      await Promise.all([...apis, ...workers].map(kill));
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
  try {
    // The first API applies the migrations (if any) and bootstraps; the others then start side by side.
    const [first, ...rest] = apis;
    await start(first!);
    await Promise.all([...rest, ...workers].map(start));
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}
