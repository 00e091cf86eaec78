// `npm run bench:growth`: does the cost of reading track the work, not the history? Loads events and audit entries by
// SQL (generate_series straight into the monthly partitions of migration 0057, spread over the past year) into a
// throwaway embedded Postgres, and times the event stream's cursor page (db/events/events/queries.ts) and the audit
// search (db/events/audit-logs/queries.ts) of one tenant at 10 thousand rows and again at the full size: the ratio
// should stay within 2x, judged on the best of BENCH_RUNS (30) runs, with the median printed beside it. Prints the
// events table's size per million events. BENCH_EVENTS (10,000,000) and BENCH_AUDIT (1,000,000) set the full size;
// BENCH_TENANTS (1000) how many tenants share them.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../db/pool.ts';
import { createEventQueries } from '../db/events/events/queries.ts';
import { createAuditLogQueries } from '../db/events/audit-logs/queries.ts';
import { startBenchDatabase } from './database.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const AUDIT = Number(process.env.BENCH_AUDIT ?? Math.round(EVENTS / 10));
const TENANTS = Number(process.env.BENCH_TENANTS ?? 1000);
const SMALL = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
/** Rows per INSERT: each statement stays well inside the pool's 30 s statement timeout, even on a busy machine. */
const CHUNK = 50_000;

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const url = await startBenchDatabase(cleanups);
  const pool = await createDatabasePool(url, { maxPoolSize: 4 });
  cleanups.push(() => pool.end());
  const tenants = Array.from({ length: TENANTS }, () => randomUUID());
  const tenantId = tenants[0] ?? '';
  await pool.query(sql.unsafe`SELECT partition_ensure_months(t, now() - interval '1 year', 2) FROM unnest(ARRAY['events', 'audit_logs']) t`);

  /** Adds rows up to `events` events and `audit` entries, in chunks, spread over the past year and the tenants. */
  let loaded = { events: 0, audit: 0 };
  const load = async (events: number, audit: number) => {
    const t0 = performance.now();
    for (let from = loaded.events; from < events; from += CHUNK) {
      const n = Math.min(CHUNK, events - from);
      await pool.query(sql.unsafe`
        INSERT INTO events (type, tenant_id, actor, subject, data, occurred_at)
        SELECT 'user.updated', (${sql.array(tenants, 'uuid')})[1 + g % ${TENANTS}], '{"type":"system","id":null}', jsonb_build_object('type', 'user', 'id', g::text),
          jsonb_build_object('field', 'name', 'n', g), now() - random() * interval '360 days'
        FROM generate_series(1, ${n}) g`);
    }
    for (let from = loaded.audit; from < audit; from += CHUNK) {
      const n = Math.min(CHUNK, audit - from);
      await pool.query(sql.unsafe`
        INSERT INTO audit_logs (tenant_id, actor_type, actor_id, action, resource_type, resource_id, changes, occurred_at)
        SELECT (${sql.array(tenants, 'uuid')})[1 + g % ${TENANTS}], 'api_key', 'k' || (g % 7), CASE WHEN g % 3 = 0 THEN 'user.deleted' ELSE 'user.updated' END,
          'user', g::text, '{"before":{"name":"a"},"after":{"name":"b"}}', now() - random() * interval '360 days'
        FROM generate_series(1, ${n}) g`);
    }
    loaded = { events, audit };
    await pool.query(sql.unsafe`ANALYZE events`);
    await pool.query(sql.unsafe`ANALYZE audit_logs`);
    console.log(`loaded ${events.toLocaleString()} events, ${audit.toLocaleString()} audit entries (${Math.round(performance.now() - t0)} ms)`);
  };

  /**
   * Times of `run` over RUNS runs, in ms: the best (the query's own cost: on a busy machine every other run also waits
   * for a CPU) and the median (which shows that noise).
   */
  const timed = async (run: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { best: times[0] ?? 0, median: times[Math.floor(RUNS / 2)] ?? 0 };
  };
  const measure = async () => {
    const events = createEventQueries(pool);
    // A consumer's next page: from a cursor in the middle of the tenant's stream.
    const middle = await pool.one(sql.type(z.object({ txId: z.string(), sequence: z.string() }))`
      SELECT tx_id::text AS "txId", sequence::text AS sequence FROM events WHERE tenant_id = ${tenantId}
      ORDER BY tx_id, sequence OFFSET (SELECT count(*) / 2 FROM events WHERE tenant_id = ${tenantId}) LIMIT 1`);
    const audit = createAuditLogQueries(pool, { tenantId });
    return {
      page: await timed(() => events.findTenantEventsAfter(tenantId, middle, { types: [], prefixes: [] }, 50)),
      search: await timed(() => audit.findEntries({ action: 'user.deleted' }, null, 50)),
    };
  };

  await load(Math.min(SMALL, EVENTS), Math.min(SMALL, AUDIT));
  const small = await measure();
  await load(EVENTS, AUDIT);
  const large = await measure();
  const size = await pool.oneFirst(sql.type(z.object({ bytes: z.string() }))`
    SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`);
  const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
  const line = (what: string, a: { best: number; median: number }, b: { best: number; median: number }, rows: number) =>
    `${what}: best of ${RUNS} ${fmt(a.best)} at ${SMALL.toLocaleString()} → ${fmt(b.best)} at ${rows.toLocaleString()}: ${(b.best / a.best).toFixed(2)}x (target ≤ 2x); ` +
    `median ${fmt(a.median)} → ${fmt(b.median)}: ${(b.median / a.median).toFixed(2)}x`;
  console.log(line('event stream page (50, mid-stream cursor)', small.page, large.page, EVENTS));
  console.log(line('audit search (action, newest 50)', small.search, large.search, AUDIT));
  console.log(`events table size: ${(Number(size) / 2 ** 20 / (EVENTS / 1e6)).toFixed(0)} MiB per million events (with indexes)`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}
