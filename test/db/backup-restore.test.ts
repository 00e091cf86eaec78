// `npm run db:backup` / `db:restore` with the real pg_dump and pg_restore: rows made through the API, backed up,
// restored into a fresh embedded Postgres (a new DATA_DIR, as on a new machine), compared table by table (row counts,
// rows ordered by primary key, sequences), and a service started on the restored database answers the same GET.
// A backup from an older release migrates forward on restore; one from a newer release is refused. The PostgreSQL
// client is found or installed by scripts/pg-tools.ts; without one the suite is skipped, except under CI=true.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded.ts';
import { migrate, migrationNames } from '../../db/migrate.ts';
import { embeddedMajor, findOrInstallPgTools, type PgTools } from '../../scripts/pg-tools.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEmptyDatabase } from '../helpers/database.ts';
import { newEnvironments } from '../helpers/fixtures.ts';

let tools: PgTools | undefined;
try {
  tools = await findOrInstallPgTools(embeddedMajor(), { binDir: process.env.PG_BIN_DIR, log: (line) => console.log(`PostgreSQL client: ${line}`) });
} catch (error) {
  const line = `backup and restore suite skipped: ${(error as Error).message}`;
  if (process.env.CI === 'true') throw new Error(`${line} (a failure under CI=true)`);
  console.log(line);
}

const root = path.resolve(import.meta.dirname, '../..');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-backup-'));
await fs.chmod(dir, 0o711); // run as root, the restored embedded Postgres runs as the postgres OS user, below this folder
const cleanUps: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanUp of cleanUps.reverse()) await cleanUp();
  await fs.rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run <script>`'s file as the operator would, with only the given configuration. */
async function script(name: 'db-backup' | 'db-restore', args: string[], env: Record<string, string>): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(DATABASE_URL|MASTER_KEY|DATA_DIR)$/.test(key)));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'scripts', `${name}.ts`), ...args], {
      env: { ...clean, ...env },
      cwd: dir,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

const ok = (run: Run) => {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run.stdout;
};

/** Every table's row count, the first rows of each by primary key (all of `events`), every sequence's position. */
async function snapshot(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (
      await client.query<{ name: string; key: string | null }>(
        `SELECT format('%I.%I', n.nspname, c.relname) AS name,
                (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.i) FROM pg_index x
                   CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, i)
                   JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                  WHERE x.indrelid = c.oid AND x.indisprimary) AS key
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY 1`,
      )
    ).rows;
    const counts: Record<string, number> = {};
    const rows: Record<string, string[]> = {};
    for (const { name, key } of tables) {
      counts[name] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`)).rows[0]!.n);
      const limit = name === 'public.events' ? '' : 'LIMIT 25';
      const sample = await client.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM ${name} t ORDER BY ${key ?? 'to_jsonb(t)::text'} ${limit}`);
      rows[name] = sample.rows.map((r) => r.row);
    }
    const sequences = (
      await client.query<{ name: string; value: string | null }>(
        `SELECT schemaname || '.' || sequencename AS name, last_value::text AS value FROM pg_sequences ORDER BY 1`,
      )
    ).rows;
    return { counts, rows, sequences };
  } finally {
    await client.end();
  }
}

describe.skipIf(!tools)('db:backup and db:restore (pg_dump, pg_restore)', () => {
  it('restores every row into a fresh embedded Postgres, and a service on it answers the same', { timeout: 240_000 }, async () => {
    const t: TestApp = await startTestApp();
    const token = await t.token();
    const tenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name: 'Backed up' } })).json<{
      tenant: { id: string };
    }>().tenant;
    const organization = await t.app.inject({
      method: 'POST',
      url: '/v1/organizations',
      headers: bearer(token),
      payload: { name: 'Acme', tenantIds: [tenant.id] },
    });
    expect(organization.statusCode, organization.body).toBe(201);
    const patched = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.id}`, headers: bearer(token), payload: { description: 'audited' } });
    expect(patched.statusCode, patched.body).toBe(200);
    const webhook = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${tenant.id}/webhooks`,
      headers: bearer(token),
      payload: { url: 'https://93.184.216.34/hooks', eventTypes: ['*'] },
    });
    expect(webhook.statusCode, webhook.body).toBe(201);
    const { tenantId, environmentIds } = await newEnvironments(t, token);
    const users = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/directory/users`;
    for (const name of ['ada', 'grace', 'edsger']) {
      const created = await t.app.inject({ method: 'POST', url: users, headers: bearer(token), payload: { userName: `${name}@example.com` } });
      expect(created.statusCode, created.body).toBe(201);
    }
    const before = await t.app.inject({ method: 'GET', url: users, headers: bearer(token) });
    expect(before.statusCode, before.body).toBe(200);
    // The operator keeps the bootstrap credentials apart from the data directory; the service stops for a quiet copy.
    const bootstrapFile = path.join(dir, 'bootstrap.json');
    await fs.copyFile(path.join(t.config.dataDir, 'bootstrap.json'), bootstrapFile);
    const masterKey = t.masterKey.toString('hex');
    await t.close();

    const file = path.join(dir, 'iam.dump');
    const backup = ok(await script('db-backup', [file, '--include-master-key'], { DATABASE_URL: t.databaseUrl, MASTER_KEY: masterKey }));
    expect(backup).toMatch(/^wrote .*iam\.dump \(pg_dump 1\d\.\d+, custom format, [\d.]+ MiB\): \d+ tables' data$/m);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(`${file}.master-key`)).mode & 0o777).toBe(0o600);
    expect((await fs.readFile(`${file}.master-key`, 'utf8')).trim()).toBe(masterKey);
    expect((await fs.readFile(file)).subarray(0, 5).toString()).toBe('PGDMP');

    const dataDir = path.join(dir, 'new-machine');
    const restore = ok(await script('db-restore', [file], { DATA_DIR: dataDir }));
    expect(restore).toMatch(/^restored .*iam\.dump \(pg_restore 1\d\.\d+\), made at migration \d{4}_\w+\.sql$/m);
    expect(restore).toMatch(/^no migration to apply$/m);
    expect(restore).toContain(`wrote the backup's master key to ${path.join(dataDir, 'master.key')}`);
    expect((await fs.readFile(path.join(dataDir, 'master.key'), 'utf8')).trim()).toBe(masterKey);
    const [, tableCount, rowCount] = /^(\d+) tables, (\d+) rows$/m.exec(restore)!;

    const a = await snapshot(t.databaseUrl);
    expect(a.counts['public.events']).toBeGreaterThan(0);
    expect(a.counts['public.audit_logs']).toBeGreaterThan(0);
    expect(a.counts['public.webhook_endpoints']).toBe(1);
    expect(a.counts['public.organizations']).toBeGreaterThan(1);
    const started = async () => {
      const db = await startEmbeddedPostgres({ dir: path.join(dataDir, 'pg') });
      cleanUps.push(db.stop);
      return db;
    };
    let db = await started();
    const b = await snapshot(db.url);
    expect(b.counts).toEqual(a.counts);
    expect(Object.keys(b.counts)).toHaveLength(Number(tableCount));
    expect(Object.values(b.counts).reduce((x, y) => x + y, 0)).toBe(Number(rowCount));
    for (const table of Object.keys(a.rows)) expect(b.rows[table], table).toEqual(a.rows[table]);
    expect(b.sequences).toEqual(a.sequences);

    // Into a database that holds something: refused, unless --clean, which gives the same database again.
    await db.stop();
    const refused = await script('db-restore', [file], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the target database is not empty \(.+\): restore into an empty database, or pass --clean to drop its contents/);
    ok(await script('db-restore', [file, '--clean'], { DATA_DIR: dataDir }));
    db = await started();
    expect((await snapshot(db.url)).rows).toEqual(a.rows);

    await fs.copyFile(bootstrapFile, path.join(dataDir, 'bootstrap.json'));
    const t2 = await startTestApp({ DATA_DIR: dataDir }, { databaseUrl: db.url });
    cleanUps.push(t2.close);
    expect(t2.masterKey.toString('hex')).toBe(masterKey);
    const after = await t2.app.inject({ method: 'GET', url: users, headers: bearer(await t2.token()) });
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toEqual(before.json());
  });

  it('migrates a backup from an older release forward, and refuses one from a newer release', { timeout: 120_000 }, async () => {
    const names = await migrationNames();
    const older = path.join(dir, 'older-migrations');
    await fs.mkdir(older);
    for (const name of names.slice(0, -2)) await fs.copyFile(path.join(root, 'db', 'migrations', name), path.join(older, name));
    const source = await createEmptyDatabase();
    await migrate(source, { dir: older });

    const file = path.join(dir, 'older.dump');
    expect(ok(await script('db-backup', [file], { DATABASE_URL: source }))).toContain('the master key is NOT in the backup');
    const target = await createEmptyDatabase();
    const restore = ok(await script('db-restore', [file], { DATABASE_URL: target }));
    expect(restore).toContain(`made at migration ${names.at(-3)}`);
    expect(restore).toContain(`then applied 2 migrations: ${names.slice(-2).join(', ')}`);
    const applied = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')).rows.map((r) => r.name);
      } finally {
        await client.end();
      }
    };
    expect(await applied(target)).toEqual(names);

    const client = new pg.Client({ connectionString: source });
    await client.connect();
    await client.query(`INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_from_a_newer_release.sql')`);
    await client.end();
    const newer = path.join(dir, 'newer.dump');
    ok(await script('db-backup', [newer], { DATABASE_URL: source }));
    const empty = await createEmptyDatabase();
    const refused = await script('db-restore', [newer], { DATABASE_URL: empty });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the backup has migrations this release does not (9999_from_a_newer_release.sql): restore it with the release that made it',
    );
    await expect(applied(empty)).rejects.toThrow(/relation "schema_migrations" does not exist/);
  });
});
