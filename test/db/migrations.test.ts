import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { createTestDatabase, createEmptyDatabase } from '../helpers/database.ts';

describe('migrations', () => {
  it('apply each migration once when several instances start together', async () => {
    const url = await createEmptyDatabase();
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    const applied = results.flatMap((r) => r.applied);
    expect(applied.length).toBeGreaterThan(0);
    expect(new Set(applied).size).toBe(applied.length); // no migration applied twice
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM schema_migrations');
    await client.end();
    expect(rows[0].n).toBe(applied.length);
    expect((await migrate(url)).applied).toEqual([]);
  });
});

describe('migrations that do not match', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });
  /** A temporary migrations folder holding these files (name → SQL). */
  const folder = async (files: Record<string, string>) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-migrations-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text);
    return dir;
  };
  const tables = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
      return rows.map((r) => r.t);
    } finally {
      await client.end();
    }
  };

  it('refuses two files with the same number, naming both, and applies nothing', async () => {
    const url = await createEmptyDatabase();
    const dir = await folder({ '0001_a.sql': 'CREATE TABLE a (id int);', '0002_b.sql': 'CREATE TABLE b (id int);', '0002_c.sql': 'CREATE TABLE c (id int);' });
    await expect(migrate(url, { dir })).rejects.toThrow(`migrations 0002_b.sql and 0002_c.sql share the number 0002: renumber one of them (in ${dir})`);
    expect(await tables(url)).toEqual([]);
  });

  it('refuses a second file with the number of a migration the database applied (it would be skipped)', async () => {
    const url = await createEmptyDatabase();
    const dir = await folder({ '0001_a.sql': 'CREATE TABLE a (id int);', '0009_b.sql': 'CREATE TABLE b (id int);' });
    expect((await migrate(url, { dir })).applied).toEqual(['0001_a.sql', '0009_b.sql']);
    await fs.writeFile(path.join(dir, '0009_c.sql'), 'CREATE TABLE c (id int);');
    await expect(migrate(url, { dir })).rejects.toThrow(`migrations 0009_b.sql and 0009_c.sql share the number 0009: renumber one of them (in ${dir})`);
    expect(await tables(url)).toEqual(['a', 'b', 'schema_migrations']);
  });

  it('refuses a database that applied a migration whose file is now missing or named differently', async () => {
    const url = await createEmptyDatabase();
    const dir = await folder({ '0001_a.sql': 'CREATE TABLE a (id int);', '0002_b.sql': 'CREATE TABLE b (id int);' });
    await migrate(url, { dir });
    await fs.rename(path.join(dir, '0002_b.sql'), path.join(dir, '0002_other.sql'));
    await fs.writeFile(path.join(dir, '0003_c.sql'), 'CREATE TABLE c (id int);');
    await expect(migrate(url, { dir })).rejects.toThrow(
      `migration 0002_b.sql was applied to the database, but the file of number 0002 is now 0002_other.sql (in ${dir})`,
    );
    await fs.rm(path.join(dir, '0002_other.sql'));
    await expect(migrate(url, { dir })).rejects.toThrow(`migration 0002_b.sql was applied to the database but its file is missing (in ${dir})`);
    expect(await tables(url)).toEqual(['a', 'b', 'schema_migrations']); // 0003 was not applied either
  });

  it('refuses a .sql file that is not named NNNN_name.sql', async () => {
    const url = await createEmptyDatabase();
    const dir = await folder({ '0001_a.sql': 'CREATE TABLE a (id int);', '2_b.sql': 'CREATE TABLE b (id int);' });
    await expect(migrate(url, { dir })).rejects.toThrow(`migration file 2_b.sql is not named NNNN_name.sql (in ${dir})`);
  });
});

describe('events table', () => {
  it('is immutable: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const pool = await createDatabasePool(await createTestDatabase());
    try {
      await pool.query(sql.unsafe`INSERT INTO events (type, actor, data) VALUES ('test.created', '{"type":"system","id":null}', '{}')`);
      await expect(pool.query(sql.unsafe`UPDATE events SET type = 'x'`)).rejects.toThrow(/immutable/);
      await expect(pool.query(sql.unsafe`DELETE FROM events`)).rejects.toThrow(/immutable/);
      // (deliveries reference events, so Postgres refuses TRUNCATE even before the trigger does)
      await expect(pool.query(sql.unsafe`TRUNCATE events`)).rejects.toThrow(/immutable|foreign key/);
      expect(await pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`)).toBe(1);
    } finally {
      await pool.end();
    }
  });
});

describe('0038: the remember-device lifetime moves from the MFA settings to the session config', () => {
  const MIGRATIONS = path.resolve(import.meta.dirname, '../../db/migrations');
  const MOVE = '0038_remember_device_in_session_config.sql';

  it('merges every environment’s lifetime into its session config (creating the row when missing), then drops the column', async () => {
    const url = await createEmptyDatabase();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-migrations-'));
    const client = new pg.Client({ connectionString: url });
    try {
      const earlier = (await fs.readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql') && f < MOVE);
      for (const file of earlier) await fs.copyFile(path.join(MIGRATIONS, file), path.join(dir, file));
      await migrate(url, { dir });
      await client.connect();
      const envs = (
        await client.query<{ id: string }>(`
          WITH t AS (INSERT INTO tenants (name) VALUES ('t') RETURNING id),
            p AS (INSERT INTO projects (tenant_id, name, type) SELECT id, 'p', 'web' FROM t RETURNING id, tenant_id)
          INSERT INTO environments (tenant_id, project_id, name) SELECT tenant_id, id, 'e' || g FROM p, generate_series(1, 5) g
          RETURNING id`)
      ).rows.map((r) => r.id);
      const [noRow, withRow, off, none, tooShort] = envs as [string, string, string, string, string];
      await client.query(
        `INSERT INTO mfa_settings (environment_id, mode, remember_device_seconds) VALUES ($1, 'optional', 3600), ($2, 'required', 600),
          ($3, 'required', NULL), ($4, 'optional', 30)`,
        [noRow, withRow, off, tooShort],
      );
      await client.query(
        `INSERT INTO oidc_settings (environment_id, session_config) VALUES
          ($1, '{"accessTokenLifetimeSeconds": 900, "rememberDeviceSeconds": 5, "brand": {"color": "teal"}}'), ($2, '{"rememberMe": false}')`,
        [withRow, off],
      );

      await fs.copyFile(path.join(MIGRATIONS, MOVE), path.join(dir, MOVE));
      expect((await migrate(url, { dir })).applied).toEqual([MOVE]);
      const { rows } = await client.query<{ id: string; config: unknown }>(
        'SELECT environment_id AS id, session_config AS config FROM oidc_settings ORDER BY environment_id',
      );
      expect(Object.fromEntries(rows.map((r) => [r.id, r.config]))).toEqual({
        [noRow]: { rememberDeviceSeconds: 3600 },
        [withRow]: { accessTokenLifetimeSeconds: 900, rememberDeviceSeconds: 600, brand: { color: 'teal' } },
        [off]: { rememberMe: false },
        // The API never took less than 60 seconds: a shorter value written around it becomes the shortest valid one.
        [tooShort]: { rememberDeviceSeconds: 60 },
      });
      expect(rows.map((r) => r.id)).not.toContain(none);
      const column = await client.query(
        "SELECT 1 FROM information_schema.columns WHERE table_name = 'mfa_settings' AND column_name = 'remember_device_seconds'",
      );
      expect(column.rowCount).toBe(0);
    } finally {
      await client.end().catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('0060: deliveries and their attempts are partitioned by month', () => {
  const MIGRATIONS = path.resolve(import.meta.dirname, '../../db/migrations');
  const PARTITION = '0060_delivery_partitions.sql';

  it('moves every delivery and attempt into its month (originals at their event’s, redeliveries at their own), keeping the key and the cascade', async () => {
    const url = await createEmptyDatabase();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-migrations-'));
    const client = new pg.Client({ connectionString: url });
    try {
      const earlier = (await fs.readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql') && f < PARTITION);
      for (const file of earlier) await fs.copyFile(path.join(MIGRATIONS, file), path.join(dir, file));
      await migrate(url, { dir });
      await client.connect();
      const one = async (text: string, values: unknown[] = []) => (await client.query<{ id: string }>(text, values)).rows[0]!.id;
      const tenant = await one(`INSERT INTO tenants (name) VALUES ('t') RETURNING id`);
      const endpoint = await one(`INSERT INTO webhook_endpoints (tenant_id, url, event_types) VALUES ($1, 'https://example.com', '{*}') RETURNING id`, [
        tenant,
      ]);
      // An event of the last minute of January, dispatched in February; its redelivery in March; a delivery whose event is gone.
      const event = await one(`INSERT INTO events (type, actor, occurred_at) VALUES ('t.x', '{}', '2025-01-31T23:59:00Z') RETURNING id`);
      const insert = `INSERT INTO deliveries (tenant_id, event_id, endpoint_id, status, redelivery_of, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`;
      const original = await one(insert, [tenant, event, endpoint, 'failed', null, '2025-02-01T00:01:00Z']);
      const redelivery = await one(insert, [tenant, event, endpoint, 'pending', original, '2025-03-10T12:00:00Z']);
      const orphan = await one(insert, [tenant, '00000000-0000-4000-8000-000000000000', endpoint, 'succeeded', null, '2025-02-10T00:00:00Z']);
      await client.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code) VALUES
          ($1, 1, '2025-02-01T00:01:00Z', 10, 500), ($1, 2, '2025-02-01T00:01:05Z', 10, 500), ($2, 1, '2025-03-10T12:00:00Z', 10, 503)`,
        [original, redelivery],
      );

      await fs.copyFile(path.join(MIGRATIONS, PARTITION), path.join(dir, PARTITION));
      expect((await migrate(url, { dir })).applied).toEqual([PARTITION]);
      const deliveries = await client.query<{ id: string; partition: string; status: string; redelivery_of: string | null }>(
        'SELECT id, tableoid::regclass::text AS partition, status, redelivery_of FROM deliveries ORDER BY created_at',
      );
      expect(deliveries.rows).toEqual([
        { id: original, partition: 'deliveries_p202501', status: 'failed', redelivery_of: null },
        { id: orphan, partition: 'deliveries_p202502', status: 'succeeded', redelivery_of: null },
        { id: redelivery, partition: 'deliveries_p202503', status: 'pending', redelivery_of: original },
      ]);
      const attempts = await client.query(
        'SELECT delivery_id, attempt, status_code, tableoid::regclass::text AS partition FROM delivery_attempts ORDER BY started_at',
      );
      expect(attempts.rows).toEqual([
        { delivery_id: original, attempt: 1, status_code: 500, partition: 'delivery_attempts_p202501' },
        { delivery_id: original, attempt: 2, status_code: 500, partition: 'delivery_attempts_p202501' },
        { delivery_id: redelivery, attempt: 1, status_code: 503, partition: 'delivery_attempts_p202503' },
      ]);
      // The dispatcher's key still holds: a second original delivery of the event to the endpoint is refused.
      await expect(
        client.query(`INSERT INTO deliveries (tenant_id, event_id, endpoint_id, filed_at) VALUES ($1, $2, $3, '2025-01-31T23:59:00Z')`, [
          tenant,
          event,
          endpoint,
        ]),
      ).rejects.toThrow(/duplicate key value violates unique constraint "deliveries_p202501_event_id_endpoint_id_filed_at_idx"/);
      // Deleting the endpoint deletes its deliveries and their attempts.
      await client.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint]);
      expect((await client.query('SELECT count(*)::int AS n FROM deliveries')).rows[0].n).toBe(0);
      expect((await client.query('SELECT count(*)::int AS n FROM delivery_attempts')).rows[0].n).toBe(0);
    } finally {
      await client.end().catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
