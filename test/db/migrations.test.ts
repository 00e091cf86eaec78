import pg from 'pg';
import { sql } from 'slonik';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
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
