// The directory's email-prefix search at scale: 10k users, each search planned on indexes (its speed is measured by bench:authzen).
import pg from 'pg';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDirectoryUserQueries } from '../../db/directory/users/queries.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
afterAll(() => t.close());

describe('email-prefix search among 10k users', () => {
  let env: string;
  let search: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token();
    const tenantId = t.credentials.tenantId;
    const project = await t.app.inject({ method: 'POST', url: `/v1/tenants/${tenantId}/projects`, headers: bearer(token), payload: { name: 'Big' } });
    env = project.json().environments[0].id;
    search = `/v1/tenants/${tenantId}/environments/${env}/directory/users`;
    // Two emails each: a random-looking one, and a patterned one that a short prefix matches for every user.
    await t.pool.query(sql.unsafe`
      INSERT INTO users (environment_id, user_name, emails)
      SELECT ${env}, 'user' || i, jsonb_build_array(
        jsonb_build_object('id', gen_random_uuid(), 'value', md5(i::text) || '@example.com', 'type', 'work'),
        jsonb_build_object('id', gen_random_uuid(), 'value', 'user' || i || '@corp.example', 'type', null))
      FROM generate_series(1, 10000) i`);
    await t.pool.query(sql.unsafe`ANALYZE users, user_emails`);
  });
  const find = async (query: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: search, query, headers: bearer(token) })).json().users.map((u: { userName: string }) => u.userName);

  // From one match to every user: few matches are fetched by id, many by walking the list order.
  const PREFIXES = ['user9999@', 'abc', 'ab', 'a', 'user1', 'user'];

  it('plans every search on indexes, never scanning the users of the environment', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      for (const emailPrefix of PREFIXES) {
        const plans: string[] = [];
        const explain = async (query: { sql: string; values: readonly unknown[] }) => {
          const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1'); // slonik's placeholders, as Postgres numbers them
          const { rows } = await client.query(`EXPLAIN ${text}`, [...query.values]);
          plans.push(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
        };
        // Explains both statements; runs the lookup of matching ids, not the page query.
        const explaining = {
          oneFirst: async (query: Parameters<typeof t.pool.oneFirst>[0]) => (await explain(query), t.pool.oneFirst(query)),
          any: async (query: Parameters<typeof explain>[0]) => (await explain(query), []),
        };
        await createDirectoryUserQueries(explaining as never, env).findUsers({ emailPrefix }, undefined, 51);
        expect(plans, emailPrefix).toHaveLength(2);
        for (const plan of plans) expect(plan, emailPrefix).not.toMatch(/Seq Scan/);
        expect(plans[0], emailPrefix).toMatch(/Index (Only )?Scan (using|on) user_emails_pkey /);
        expect(plans[1], emailPrefix).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) (users_pkey|users__environment_created) /);
      }
    } finally {
      await client.end();
    }
  });

  it('finds what each prefix matches', async () => {
    expect(await find({ emailPrefix: 'USER9999@' })).toEqual(['user9999']);
    expect(await find({ emailPrefix: 'zzz' })).toEqual([]);
    expect(await find({ emailPrefix: 'user' })).toHaveLength(50);
    expect((await find({ emailPrefix: 'user1000', limit: '3' })).sort()).toEqual(['user1000', 'user10000']);
    expect(await find({ emailPrefix: 'user', userName: 'USER42' })).toEqual(['user42']);
  });
});
