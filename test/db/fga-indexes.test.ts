// The tuple reader's two look-ups are one statement each and use their indexes on a store of 60 000 tuples: by
// objects the primary key, by users the reverse index (never a scan of the environment's tuples).
import pg from 'pg';
import { sql, type CommonQueryMethods } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../../db/pool.ts';
import { createFgaTupleReader } from '../../db/access/fga/reader.ts';
import { createTestDatabase } from '../helpers/database.ts';

let url: string;
let pool: DatabasePool;
let environmentId: string;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = await createDatabasePool(url, { maxPoolSize: 2 });
  environmentId = String(
    await pool.oneFirst(sql.unsafe`
      WITH t AS (INSERT INTO tenants (name) VALUES ('fga') RETURNING id),
      p AS (INSERT INTO projects (tenant_id, name, type) SELECT id, 'fga', 'web' FROM t RETURNING id, tenant_id)
      INSERT INTO environments (tenant_id, project_id, name) SELECT tenant_id, id, 'fga' FROM p RETURNING id`),
  );
  // 20 000 documents with 3 viewers each among 10 000 users: enough rows that a scan would lose to the indexes.
  await pool.query(sql.unsafe`
    INSERT INTO fga_tuples (environment_id, object_type, object_id, relation, user_type, user_id)
    SELECT ${environmentId}, 'document', 'd' || (i / 3), 'viewer', 'user', 'u' || ((i::bigint * 7919) % 10000)
    FROM generate_series(0, 59999) i ON CONFLICT DO NOTHING`);
  await pool.query(sql.unsafe`ANALYZE fga_tuples`);
}, 120_000);
afterAll(() => pool?.end());

/** The statements a reader call runs, captured, then EXPLAINed as they are. */
async function plansOf(call: (db: CommonQueryMethods) => Promise<unknown>): Promise<string[]> {
  const statements: { sql: string; values: readonly unknown[] }[] = [];
  const capture = { any: async (token: { sql: string; values: readonly unknown[] }) => (statements.push(token), []) } as unknown as CommonQueryMethods;
  await call(capture);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const plans: string[] = [];
    for (const s of statements) {
      // Slonik numbers its placeholders `$slonik_1`; pg wants `$1`.
      const { rows } = await client.query(`EXPLAIN ${s.sql.replace(/\$slonik_(\d+)/g, '$$$1')}`, s.values as unknown[]);
      plans.push(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
    }
    return plans;
  } finally {
    await client.end();
  }
}

describe('the FGA tuple reader on 60 000 tuples', () => {
  it('reads by objects through the primary key, in one statement', async () => {
    const plans = await plansOf((db) => createFgaTupleReader(db, environmentId).byObjects('document', ['d1', 'd2', 'd3', 'd19999'], ['viewer', 'owner']));
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Index (Only )?Scan using fga_tuples_pkey/);
    expect(plans[0]).not.toMatch(/Seq Scan/);
  });

  it('reads by users through the reverse index, in one statement', async () => {
    const users = [
      { type: 'user', id: 'u1', relation: '' },
      { type: 'user', id: 'u2', relation: '' },
      { type: 'user', id: '*', relation: '' },
      { type: 'group', id: 'g1', relation: 'member' },
    ];
    const plans = await plansOf((db) => createFgaTupleReader(db, environmentId).byUsers('document', 'viewer', users, 1000));
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Index (Only )?Scan using fga_tuples__by_user/);
    expect(plans[0]).not.toMatch(/Seq Scan on fga_tuples/);
  });

  it('answers the same rows as the plain filter', async () => {
    const reader = createFgaTupleReader(pool, environmentId);
    const byUsers = await reader.byUsers('document', 'viewer', [{ type: 'user', id: 'u1', relation: '' }]);
    expect(byUsers.length).toBeGreaterThan(0);
    expect(byUsers.every((x) => x.userId === 'u1' && x.objectType === 'document')).toBe(true);
    const byObjects = await reader.byObjects('document', [byUsers[0]!.objectId], ['viewer']);
    expect(byObjects.map((x) => x.userId)).toContain('u1');
  });
});
