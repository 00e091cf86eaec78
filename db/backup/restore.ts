// db:restore: pg_restore of a db:backup archive into an empty database (or one emptied first with `clean`), in one
// transaction, objects owned by the restoring user; then this release's migrations, so that a backup from an older
// release comes forward to this schema. A backup from a newer release is refused before anything changes.
import { migrate, migrationNames } from '../migrate.ts';
import { connection, run, type PgClient } from './client-process.ts';
import { contents, dropContents, tableCounts, withClient } from './queries.ts';

export interface RestoreOptions {
  /** Drop everything the database holds first. Without it the database must be empty. */
  clean?: boolean;
}

export interface RestoreResult {
  /** The migrations the archive's database had applied, oldest first. */
  archived: string[];
  /** The migrations applied after the restore. */
  applied: string[];
  /** Every table's row count after the restore and the migrations. */
  tables: Record<string, number>;
}

/** The migrations applied in the archived database: its schema_migrations rows, read from the archive alone. */
export async function archivedMigrations(file: string, client: PgClient): Promise<string[]> {
  const text = await run(client.pgRestore, ['--data-only', '--table=schema_migrations', '--file=-', file]);
  const copy = /^COPY public\.schema_migrations \(([^)]*)\) FROM stdin;\n([\s\S]*?)^\\\.$/m.exec(text);
  if (!copy) throw new Error(`${file} holds no schema_migrations table: it is not a db:backup of this service`);
  const nameAt = copy[1]!.split(', ').indexOf('name');
  const versionAt = copy[1]!.split(', ').indexOf('version');
  return copy[2]!
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .sort((a, b) => Number(a[versionAt]) - Number(b[versionAt]))
    .map((fields) => fields[nameAt]!);
}

export async function restoreDatabase(databaseUrl: string, file: string, client: PgClient, options: RestoreOptions = {}): Promise<RestoreResult> {
  const archived = await archivedMigrations(file, client);
  const ours = new Set(await migrationNames());
  const unknown = archived.filter((name) => !ours.has(name));
  if (unknown.length)
    throw new Error(`the backup has migrations this release does not (${unknown.join(', ')}): restore it with the release that made it, or a newer one`);
  await withClient(databaseUrl, async (db) => {
    if (options.clean) await dropContents(db);
    const held = await contents(db);
    if (held.length)
      throw new Error(
        `the target database is not empty (${held.join(', ')}${held.length === 5 ? ', …' : ''}): restore into an empty database, or pass --clean to drop its contents`,
      );
  });
  const { dbname, env } = connection(databaseUrl);
  await run(client.pgRestore, ['--single-transaction', '--no-owner', '--no-privileges', '--no-password', `--dbname=${dbname}`, file], { env });
  const { applied } = await migrate(databaseUrl);
  const tables = await withClient(databaseUrl, async (db) => {
    await db.query('ANALYZE'); // pg_restore leaves the planner without statistics
    return tableCounts(db);
  });
  return { archived, applied, tables };
}
