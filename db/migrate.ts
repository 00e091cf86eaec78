// Forward-only numbered SQL migrations, applied under an advisory lock so that instances starting
// together apply each migration exactly once. The number is the identity of a migration: two files with
// one number, or a database whose applied migrations no longer match the files, stop the run.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 715_303_001; // arbitrary, constant: identifies "iam schema migrations"
const FILE_NAME = /^(\d{4})_[\w-]+\.sql$/;

export interface MigrationResult {
  applied: string[];
}

/** The migration files of `dir` by number; throws on a `.sql` file not named `NNNN_name.sql` or a number used twice. */
async function migrationFiles(dir: string): Promise<Map<number, string>> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const byVersion = new Map<number, string>();
  for (const file of files) {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`migration file ${file} is not named NNNN_name.sql (in ${dir})`);
    const version = Number(match[1]);
    const other = byVersion.get(version);
    if (other) throw new Error(`migrations ${other} and ${file} share the number ${match[1]}: renumber one of them (in ${dir})`);
    byVersion.set(version, file);
  }
  return byVersion;
}

/** Throws unless every migration the database applied is still there under the name it was applied with. */
function checkApplied(applied: { version: number; name: string }[], files: Map<number, string>, dir: string): void {
  for (const { version, name } of applied) {
    const file = files.get(version);
    if (file === undefined) throw new Error(`migration ${name} was applied to the database but its file is missing (in ${dir})`);
    if (file !== name)
      throw new Error(`migration ${name} was applied to the database, but the file of number ${String(version).padStart(4, '0')} is now ${file} (in ${dir})`);
  }
}

/** The number of the newest migration file: the schema head this code expects (the readiness probe compares it). */
export async function latestMigration(dir = MIGRATIONS_DIR): Promise<number> {
  return Math.max(0, ...(await migrationFiles(dir)).keys());
}

/** The migration file names, oldest first: what a fully migrated database lists in schema_migrations. */
export async function migrationNames(dir = MIGRATIONS_DIR): Promise<string[]> {
  return [...(await migrationFiles(dir))].sort(([a], [b]) => a - b).map(([, file]) => file);
}

export async function migrate(databaseUrl: string, options: { dir?: string } = {}): Promise<MigrationResult> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const files = await migrationFiles(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = (await client.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')).rows;
    checkApplied(done, files, dir);
    const doneVersions = new Set(done.map((r) => r.version));
    for (const [version, file] of [...files].sort(([a], [b]) => a - b)) {
      if (doneVersions.has(version)) continue;
      const text = await fs.readFile(path.join(dir, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(text);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return { applied };
}
