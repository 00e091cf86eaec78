// The SQL of db:backup and db:restore. All of it looks at the whole database (every tenant, every schema) by design.
import pg from 'pg';

/** Schemas that are the database's own contents: not pg_catalog, information_schema, pg_toast or temporary ones. */
const USER_SCHEMAS = `n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'`;

export async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The server's major version (18 for 18.4). */
export const serverMajor = (databaseUrl: string) =>
  withClient(databaseUrl, async (client) => Math.floor(Number((await client.query<{ v: string }>('SHOW server_version_num')).rows[0]!.v) / 10_000));

/** Up to five of what the database holds (schemas other than `public`, tables, views, sequences…): empty when none. */
export async function contents(client: pg.Client): Promise<string[]> {
  // unscoped: whether the target database holds anything at all, before a restore.
  const { rows } = await client.query<{ name: string }>(
    `SELECT name FROM (
       SELECT 0 AS rank, format('schema %I', n.nspname) AS name FROM pg_namespace n WHERE ${USER_SCHEMAS} AND n.nspname <> 'public'
       UNION ALL
       SELECT CASE WHEN c.relkind IN ('r', 'p') THEN 1 ELSE 2 END, format('%I.%I', n.nspname, c.relname)
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMAS}
     ) held ORDER BY rank, name LIMIT 5`,
  );
  return rows.map((r) => r.name);
}

/** Drops every schema of the database's own (and so all it holds), then makes an empty `public` again. */
export async function dropContents(client: pg.Client): Promise<void> {
  // unscoped: db:restore --clean empties the whole target database.
  const { rows } = await client.query<{ name: string }>(`SELECT n.nspname AS name FROM pg_namespace n WHERE ${USER_SCHEMAS}`);
  await client.query('BEGIN');
  try {
    for (const { name } of rows) await client.query(`DROP SCHEMA ${pg.escapeIdentifier(name)} CASCADE`);
    await client.query('CREATE SCHEMA public');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** Every table's row count (a partitioned table counted once, with its partitions), `schema.table` outside `public`. */
export async function tableCounts(client: pg.Client): Promise<Record<string, number>> {
  // unscoped: a restore reports every table of the database.
  const { rows } = await client.query<{ schema: string; name: string }>(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${USER_SCHEMAS} AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY n.nspname <> 'public', 1, 2`,
  );
  const counts: Record<string, number> = {};
  for (const { schema, name } of rows) {
    const table = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
    // unscoped: counts every tenant's rows.
    const { rows: n } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    counts[schema === 'public' ? name : `${schema}.${name}`] = Number(n[0]!.n);
  }
  return counts;
}
