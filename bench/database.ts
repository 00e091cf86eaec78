// A throwaway embedded Postgres with a migrated database for a benchmark run.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';

/** Returns the database URL; `cleanups` gets what undoes it, to run in reverse order. */
export async function startBenchDatabase(cleanups: (() => Promise<unknown>)[]): Promise<string> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-pg-'));
  cleanups.push(() => fs.rm(tmp, { recursive: true, force: true }));
  await fs.chmod(tmp, 0o711); // the postgres OS user must traverse it
  const db = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg') });
  cleanups.push(() => db.stop());
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('CREATE DATABASE iam_bench');
  await admin.end();
  const databaseUrl = db.url.replace(/\/postgres$/, '/iam_bench');
  await migrate(databaseUrl);
  return databaseUrl;
}
