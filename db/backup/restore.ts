// Restores a backup written by dump.ts: the schema comes from this release's migrations (the backup must be at the
// same migration head), then every table's rows and the sequences, in one transaction with triggers and foreign
// keys off (session_replication_role = replica: needs a superuser, as the embedded Postgres's user is).
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import pg from 'pg';
import { migrate, migrationNames } from '../migrate.ts';
import { BACKUP_FORMAT, BACKUP_VERSION, quoteIdent, type BackupHeader } from './dump.ts';

export interface RestoreOptions {
  /** Drop the schemas `public` and `dbos` first. Without it the database must hold no tables. */
  clean?: boolean;
}

export interface RestoreResult {
  header: BackupHeader;
  tables: Record<string, number>;
}

const BATCH = 1000;

async function* entries(file: string): AsyncGenerator<unknown> {
  const lines = readline.createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line);
}

export async function readBackupHeader(file: string): Promise<BackupHeader> {
  for await (const first of entries(file)) {
    const header = first as BackupHeader;
    if (header.format !== BACKUP_FORMAT || header.version !== BACKUP_VERSION) throw new Error(`${file} is not an ${BACKUP_FORMAT} v${BACKUP_VERSION} file`);
    return header;
  }
  throw new Error(`${file} is empty`);
}

export async function restoreDatabase(databaseUrl: string, file: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const header = await readBackupHeader(file);
  const ours = await migrationNames();
  if (header.migrations.join(',') !== ours.join(','))
    throw new Error(
      `the backup is at migration ${header.migrations.at(-1)}, this release at ${ours.at(-1)}: restore with the release that made the backup, then upgrade`,
    );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if (options.clean) await client.query('DROP SCHEMA IF EXISTS dbos CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    // unscoped: checks the whole target database is empty before writing into it.
    const existing = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname IN ('public', 'dbos') LIMIT 1`);
    if (existing.rowCount) throw new Error('the target database is not empty: restore into an empty database, or pass --clean to drop its contents');
    await migrate(databaseUrl);
    const tables = await load(client, file);
    return { header, tables };
  } finally {
    await client.end();
  }
}

async function load(client: pg.Client, file: string): Promise<Record<string, number>> {
  const tables: Record<string, number> = {};
  let table: string | undefined;
  let batch: unknown[] = [];
  const flush = async () => {
    if (!table || !batch.length) return;
    const columns = await insertable(client, table);
    const list = columns.map(quoteIdent).join(', ');
    await client.query(
      `INSERT INTO public.${quoteIdent(table)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM jsonb_populate_recordset(NULL::public.${quoteIdent(table)}, $1::jsonb)`,
      [JSON.stringify(batch)],
    );
    tables[table] = (tables[table] ?? 0) + batch.length;
    batch = [];
  };
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    // Migrations may have seeded rows (schema_migrations itself): the backup's rows replace them.
    const { rows } = await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`);
    await client.query(`TRUNCATE ${rows.map((r) => `public.${quoteIdent(r.name)}`).join(', ')}`);
    for await (const entry of entries(file)) {
      if (!Array.isArray(entry)) continue; // the header
      const [kind, a, b] = entry as [string, unknown, unknown];
      if (kind === 'R') {
        batch.push(a);
        if (batch.length >= BATCH) await flush();
      } else if (kind === 'T') {
        await flush();
        table = a as string;
        tables[table] = 0;
      } else if (kind === 'S') {
        await flush();
        if (b !== null) await client.query('SELECT setval($1::regclass, $2::bigint, true)', [`public.${quoteIdent(a as string)}`, b]);
      }
    }
    await flush();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return tables;
}

const columnCache = new WeakMap<pg.Client, Map<string, string[]>>();

/** The table's columns a row can be written to (not generated, not dropped). */
async function insertable(client: pg.Client, table: string): Promise<string[]> {
  const cache = columnCache.get(client) ?? new Map<string, string[]>();
  columnCache.set(client, cache);
  const known = cache.get(table);
  if (known) return known;
  const { rows } = await client.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [`public.${quoteIdent(table)}`],
  );
  cache.set(
    table,
    rows.map((r) => r.name),
  );
  return cache.get(table)!;
}
