// The database db:backup and db:restore work on: DATABASE_URL, or the embedded Postgres in DATA_DIR/pg. That one is
// started for the duration of the command; when a running service holds it, a backup reads through the service's
// Postgres (a consistent snapshot) and a restore refuses.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import type { Config } from '../lib/config.ts';

export interface Target {
  url: string;
  release(): Promise<void>;
}

export async function databaseTarget(config: Config, use: 'backup' | 'restore'): Promise<Target> {
  if (config.databaseUrl) return { url: config.databaseUrl, release: async () => {} };
  const dir = path.join(config.dataDir, 'pg');
  const port = await runningPort(path.join(dir, 'data', 'postmaster.pid'));
  if (port !== undefined) {
    if (use === 'restore') throw new Error(`the service is running on ${dir} (Postgres on port ${port}): stop it, then restore`);
    const { user, password } = JSON.parse(await fs.readFile(path.join(dir, 'credentials.json'), 'utf8')) as { user: string; password: string };
    return { url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, release: async () => {} };
  }
  const embedded = await startEmbeddedPostgres({ dir });
  return { url: embedded.url, release: embedded.stop };
}

/** The port of the Postgres whose postmaster.pid is there when that process is alive (line 4 of the file). */
async function runningPort(pidFile: string): Promise<number | undefined> {
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
  try {
    process.kill(Number(lines[0]), 0);
  } catch {
    return undefined;
  }
  return Number(lines[3]);
}
