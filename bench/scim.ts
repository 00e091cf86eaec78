// SCIM at /v1/scim/v2: (a) users created per second through POST /Users (10k users, CONCURRENCY requests in flight
// from a child process); (b) p95 of `filter=userName eq "…"` and (c) of `filter=emails[type eq "work"].value eq "…"`
// over 100k users seeded by SQL, each beside the p95 of the raw SQL of the same lookup measured in the same run.
// BENCH_USERS (default 10000), BENCH_SEEDED (default 100000), BENCH_CONCURRENCY (default 16) and BENCH_SAMPLES
// (sequential requests per latency figure, default 300) tune it.
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import { sql } from 'slonik';
import { startBenchApp } from './app.ts';
import { startBenchDatabase } from './database.ts';

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const SEEDED = Number(process.env.BENCH_SEEDED ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const TARGETS = { createsPerSecond: 300, lookupP95: 20 };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 100) / 100;

/** p50/p95 (ms) of SAMPLES sequential calls of `run(i)` after 20 warm-up ones. */
async function latency(run: (i: number) => Promise<void>) {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const started = performance.now();
    await run(i);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };
}

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const service = await startBenchApp(databaseUrl);
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
  const { tenantId } = service.credentials;
  const management = { authorization: `Bearer ${await service.token()}`, 'content-type': 'application/json' };
  const project = await (await fetch(`${url}/v1/tenants/${tenantId}/projects`, { method: 'POST', headers: management, body: '{"name":"SCIM bench"}' })).json();
  const [created, seeded] = (project as { environments: { id: string }[] }).environments.map((e) => e.id) as [string, string];
  const tokenOf = async (environmentId: string) => {
    const res = await fetch(`${url}/v1/tenants/${tenantId}/environments/${environmentId}/provisioning-tokens`, {
      method: 'POST',
      headers: management,
      body: JSON.stringify({ name: 'bench', kind: 'scim' }),
    });
    return ((await res.json()) as { token: string }).token;
  };

  // (a) creates, from a child process.
  const creator = new URL('./scim/create-worker.ts', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, [creator, url, await tokenOf(created), String(USERS), String(CONCURRENCY)]);
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; failures: number };
  if (result.failures) throw new Error(`${result.failures} creates failed`);
  const perSecond = Math.round(USERS / (result.ms / 1000));

  // (b), (c): lookups over SEEDED users inserted by SQL, in the shape SCIM writes them.
  let seedMs = performance.now();
  await service.pool.query(sql.unsafe`
    INSERT INTO users (environment_id, user_name, external_id, display_name, emails, attributes)
    SELECT ${seeded}, 'user' || i || '@bench.example', 'ext-' || i, 'User ' || i,
      jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'value', 'user' || i || '@bench.example', 'type', 'work'),
        jsonb_build_object('id', gen_random_uuid(), 'value', 'user' || i || '@home.example', 'type', 'home')),
      jsonb_build_object('department', 'Dept ' || (i % 50))
    FROM generate_series(1, ${SEEDED}) i`);
  await service.pool.query(sql.unsafe`ANALYZE users`);
  await service.pool.query(sql.unsafe`ANALYZE user_emails`);
  seedMs = Math.round(performance.now() - seedMs);
  const token = await tokenOf(seeded);
  const pick = (i: number) => ((i * 7919) % SEEDED) + 1;
  const scimLookup = (filter: (n: number) => string) => async (i: number) => {
    const res = await fetch(`${url}/v1/scim/v2/Users?filter=${encodeURIComponent(filter(pick(i)))}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { totalResults: number };
    if (res.status !== 200 || body.totalResults !== 1) throw new Error(`lookup ${filter(pick(i))}: ${res.status} ${JSON.stringify(body)}`);
  };
  const sqlLookup = (query: (n: number) => ReturnType<typeof sql.unsafe>) => async (i: number) => {
    const rows = await service.pool.any(query(pick(i)));
    if (rows.length !== 1) throw new Error('raw lookup found no row');
  };
  const byUserName = await latency(scimLookup((n) => `userName eq "USER${n}@bench.example"`));
  const byUserNameSql = await latency(
    sqlLookup((n) => sql.unsafe`SELECT * FROM users WHERE environment_id = ${seeded} AND lower(user_name) = lower(${`USER${n}@bench.example`})`),
  );
  const byEmail = await latency(scimLookup((n) => `emails[type eq "work"].value eq "user${n}@bench.example"`));
  const byEmailSql = await latency(
    sqlLookup(
      (n) => sql.unsafe`SELECT * FROM users u WHERE u.environment_id = ${seeded}
        AND u.id IN (SELECT user_id FROM user_emails WHERE environment_id = ${seeded} AND email = lower(${`user${n}@bench.example`}))
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(u.emails) e WHERE e->>'type' = 'work' AND lower(e->>'value') = lower(${`user${n}@bench.example`}))`,
    ),
  );

  const verdict = (ok: boolean) => (ok ? 'OK' : 'BELOW TARGET');
  console.log(
    `\nSCIM: ${USERS} users created through POST /Users (${CONCURRENCY} in flight); lookups over ${SEEDED} users (seeded by SQL in ${seedMs} ms); ` +
      `${SAMPLES} sequential requests per latency; ${os.cpus().length} CPUs`,
  );
  const rows: [string, string, string, string][] = [
    ['', 'measured', 'target', ''],
    ['(a) POST /Users', `${perSecond} users/s`, `>= ${TARGETS.createsPerSecond}/s`, verdict(perSecond >= TARGETS.createsPerSecond)],
    [
      '(b) filter=userName eq',
      `p50 ${byUserName.p50} ms, p95 ${byUserName.p95} ms`,
      `p95 <= ${TARGETS.lookupP95} ms`,
      verdict(byUserName.p95 <= TARGETS.lookupP95),
    ],
    ['    raw SQL of the same lookup', `p50 ${byUserNameSql.p50} ms, p95 ${byUserNameSql.p95} ms`, '', ''],
    [
      '(c) filter=emails[type eq "work"].value eq',
      `p50 ${byEmail.p50} ms, p95 ${byEmail.p95} ms`,
      `p95 <= ${TARGETS.lookupP95} ms`,
      verdict(byEmail.p95 <= TARGETS.lookupP95),
    ],
    ['    raw SQL of the same lookup', `p50 ${byEmailSql.p50} ms, p95 ${byEmailSql.p95} ms`, '', ''],
  ];
  for (const [name, figure, target, ok] of rows) console.log(`${name.padEnd(46)}${figure.padEnd(34)}${target.padEnd(18)}${ok}`);
  console.log(`\nRESULT ${JSON.stringify({ bench: 'scim', perSecond, byUserName, byUserNameSql, byEmail, byEmailSql, targets: TARGETS })}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
