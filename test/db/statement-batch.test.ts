// Statements queued in one turn run as one statement (db/shared/statement-batch.ts), each answered with its own rows,
// parsed by its own schema; a later turn is a new statement; each shape is a named prepared statement; a failing
// statement fails every caller of its batch.
import { sql, type CommonQueryMethods } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStatementBatch } from '../../db/shared/statement-batch.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The pool, counting the statements sent through it. */
function counting(db: CommonQueryMethods) {
  const sent: string[] = [];
  const wrapped = {
    any: (query: Parameters<CommonQueryMethods['any']>[0]) => (sent.push(query.sql), db.any(query)),
    one: (query: Parameters<CommonQueryMethods['one']>[0]) => (sent.push(query.sql), db.one(query)),
  } as unknown as CommonQueryMethods;
  return { db: wrapped, sent };
}

const N = z.object({ n: z.number() });
const Stamp = z.object({ at: z.iso.datetime({ offset: true }), label: z.string().nullable() });

describe('a statement batch', () => {
  it('runs the statements of one turn as one statement, each with its own rows and schema', async () => {
    // One connection: the temp table lives in its session.
    await t.pool.connect(async (connection) => {
      await connection.query(sql.unsafe`CREATE TEMP TABLE batch_probe (k text PRIMARY KEY, n int NOT NULL)`);
      const { db, sent } = counting(connection);
      const batch = createStatementBatch(db);
      const [counted, stamped, none] = await Promise.all([
        batch.rows(sql.fragment`INSERT INTO batch_probe (k, n) VALUES ('a', 1) ON CONFLICT (k) DO UPDATE SET n = batch_probe.n + 1 RETURNING n`, N),
        batch.rows(sql.fragment`SELECT now() AS at, NULL::text AS label UNION ALL SELECT now(), 'second'`, Stamp),
        batch.rows(sql.fragment`SELECT 1 AS n WHERE false`, N),
      ]);
      expect(sent).toHaveLength(1);
      expect(counted).toEqual([{ n: 1 }]);
      expect(stamped.map((s) => s.label)).toEqual([null, 'second']);
      expect(Number.isNaN(Date.parse(stamped[0]!.at))).toBe(false);
      expect(none).toEqual([]);

      // The next turn is a statement of its own; a lone statement runs as itself (no CTE around it).
      expect(await batch.rows(sql.fragment`UPDATE batch_probe SET n = n + 1 WHERE k = 'a' RETURNING n`, N)).toEqual([{ n: 2 }]);
      expect(sent).toHaveLength(2);
      expect(sent[1]).not.toMatch(/^WITH/);
    });
  });

  it('runs each shape as a named prepared statement: once parsed on a connection, the same shape with other values reuses it', async () => {
    await t.pool.connect(async (connection) => {
      const prepared = () => connection.anyFirst(sql.unsafe`SELECT name FROM pg_prepared_statements WHERE name LIKE 'batch_%' ORDER BY name`);
      const before = await prepared();
      const batch = createStatementBatch(connection);
      const ask = (a: number, b: number) =>
        Promise.all([batch.rows(sql.fragment`SELECT ${a}::int AS n`, N), batch.rows(sql.fragment`SELECT ${b}::int + 1 AS n`, N)]);
      expect(await ask(1, 2)).toEqual([[{ n: 1 }], [{ n: 3 }]]);
      expect(await ask(5, 6)).toEqual([[{ n: 5 }], [{ n: 7 }]]);
      expect(await batch.rows(sql.fragment`SELECT ${9}::int AS n`, N)).toEqual([{ n: 9 }]);
      const added = (await prepared()).filter((name) => !before.includes(name));
      // The two-statement shape and the lone statement: two prepared statements, whatever the values.
      expect(added).toHaveLength(2);
      expect(added.every((name) => /^batch_[0-9a-f]{32}$/.test(String(name)))).toBe(true);
    });
  });

  it('fails every statement of a batch when one fails, and a row its schema refuses fails its caller', async () => {
    const batch = createStatementBatch(t.pool);
    const results = await Promise.allSettled([batch.rows(sql.fragment`SELECT 1 AS n`, N), batch.rows(sql.fragment`SELECT 1 / 0 AS n`, N)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(batch.rows(sql.fragment`SELECT 'one' AS n`, N)).rejects.toThrow();
  });
});
