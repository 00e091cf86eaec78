// Webhook delivery through the embedded process engine (DBOS) and the event dispatcher, end to end: events
// committed in the database until a local receiver has them.
//   1. Throughput: BENCH_EVENTS (default 2000) tenant.updated events committed in transactions of
//      BENCH_BATCH (default 50) as fast as one connection can; deliveries/s = N / (first commit -> last
//      receipt). Baseline in the same run: a bare undici loop POSTing the same signed bodies to the same
//      receiver with BENCH_BASELINE_CONCURRENCY (default 10) workers for BENCH_BASELINE_SECONDS (default 3)
//      after a 1 s warm-up; and, for reference, the same loop with as many workers as the engine used connections.
//   2. Latency: BENCH_RATE events/s (default 20) for BENCH_SECONDS (default 10), each its own transaction;
//      commit returned -> receiver arrival, p50/p99, with where the time goes (dispatch, process start, send).
// Settings the service reads (DISPATCH_POLL_MS, DATABASE_POOL_SIZE, ...) pass through from the environment.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql, type DatabasePool } from 'slonik';
import { request } from 'undici';
import { buildWebhookRequest, type WebhookEvent } from '../activities/webhook-request.ts';
import { recordChange } from '../db/queries/changes.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { startBenchAppWithProcesses } from './processes-app.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const CONCURRENCY = Number(process.env.BENCH_BASELINE_CONCURRENCY ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_EVENTS = 50;
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 3);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 120_000);
const TARGETS = { ratio: 0.25, p50Ms: 100, p99Ms: 500 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wall-clock ms with sub-ms resolution, comparable with Postgres timestamps taken on this machine. */
const wall = () => performance.timeOrigin + performance.now();
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

// ---------------------------------------------------------------------------------------------------------
// The receiver: 200 at once; first arrival per (path, event id), duplicates, and the sockets each path used.

function startReceiver() {
  const first = new Map<string, Map<string, number>>();
  const duplicates = new Map<string, number>();
  const requests = new Map<string, number>();
  const sockets = new Map<string, Set<string>>();
  let waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const at = wall();
    const route = req.url ?? '/';
    const id = String(req.headers['x-service-event-id'] ?? '');
    requests.set(route, (requests.get(route) ?? 0) + 1);
    const seen = first.get(route) ?? first.set(route, new Map()).get(route)!;
    if (seen.has(id)) duplicates.set(route, (duplicates.get(route) ?? 0) + 1);
    else seen.set(id, at);
    (sockets.get(route) ?? sockets.set(route, new Set()).get(route)!).add(`${req.socket.remotePort}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  server.keepAliveTimeout = 60_000;
  return new Promise<{
    url: string;
    arrivals(route: string): Map<string, number>;
    duplicates(route: string): number;
    requests(route: string): number;
    sockets(route: string): number;
    waitFor(route: string, ids: string[], timeoutMs: number): Promise<boolean>;
    close(): Promise<void>;
  }>((resolve) => server.listen(0, '127.0.0.1', () => {
    const arrivals = (route: string) => first.get(route) ?? new Map<string, number>();
    resolve({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      arrivals,
      duplicates: (route) => duplicates.get(route) ?? 0,
      requests: (route) => requests.get(route) ?? 0,
      sockets: (route) => sockets.get(route)?.size ?? 0,
      waitFor: async (route, ids, timeoutMs) => {
        const deadline = performance.now() + timeoutMs;
        for (;;) {
          const got = arrivals(route);
          if (ids.every((id) => got.has(id))) return true;
          const remaining = deadline - performance.now();
          if (remaining <= 0) return false;
          await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(Math.min(remaining, 200))]);
        }
      },
      close: () => new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    });
  }));
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// ---------------------------------------------------------------------------------------------------------
// Committing events the way a tenant update does (recordChange: an audit entry and the event, in one transaction).

interface Fixture {
  pool: DatabasePool;
  tenantId: string;
  organizationId: string;
  tenant: Record<string, unknown>;
}

let serial = 0;
const change = (f: Fixture) => {
  const description = `bench ${++serial}`;
  return {
    actor: { type: 'system' as const, id: 'bench' }, action: 'tenant.update',
    resource: { type: 'tenant', id: f.tenantId }, scope: { organizationId: f.organizationId, tenantId: f.tenantId },
    before: { description: f.tenant.description }, after: { description },
    event: { type: 'tenant.updated', data: { tenant: { ...f.tenant, description }, previous: { description: f.tenant.description } } },
  };
};

/** Commits `count` events in transactions of `batch`; returns their ids in commit order. */
async function commitEvents(f: Fixture, count: number, batch: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count) {
    const n = Math.min(batch, count - ids.length);
    ids.push(...(await f.pool.transaction(async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push((await recordChange(trx, change(f))).eventId);
      return out;
    })));
  }
  return ids;
}

/** Until every delivery has settled (the receiver can have a request before the engine records its outcome). */
async function settled(pool: DatabasePool, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const pending = Number(await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM deliveries WHERE status = 'pending'`));
    if (pending === 0) return;
    if (performance.now() > deadline) throw new Error(`${pending} deliveries still pending`);
    await sleep(50);
  }
}

/**
 * CPU seconds of this Node process and of everything it started (Postgres) from now on, and the cores used
 * meanwhile by other processes (load from elsewhere that makes the figures unreliable).
 */
function cpuMeter() {
  const node0 = process.cpuUsage();
  const tree0 = treeCpuSeconds(process.pid);
  const machine0 = machineBusySeconds();
  const t0 = performance.now();
  return () => {
    const u = process.cpuUsage(node0);
    const node = (u.user + u.system) / 1e6;
    const tree = treeCpuSeconds(process.pid) - tree0;
    const other = (machineBusySeconds() - machine0 - tree) / ((performance.now() - t0) / 1000);
    return { nodeCpuS: round(node, 2), postgresCpuS: round(Math.max(0, tree - node), 2), otherCpu: round(Math.max(0, other), 2) };
  };
}

// ---------------------------------------------------------------------------------------------------------
// Where the time of each delivery goes, from what the service records (all epoch ms).

interface Stages { eventId: string; dispatched: number; processStarted: number | null; attemptStarted: number | null; completed: number | null }

async function stagesOf(pool: DatabasePool, eventIds: string[]): Promise<Map<string, Stages>> {
  const rows = await pool.any(sql.unsafe`
    SELECT d.event_id AS "eventId",
      extract(epoch FROM d.created_at) * 1000 AS dispatched,
      w.created_at::float8 AS "processStarted",
      extract(epoch FROM a.started_at) * 1000 AS "attemptStarted",
      extract(epoch FROM d.completed_at) * 1000 AS completed
    FROM deliveries d
    LEFT JOIN dbos.workflow_status w ON w.workflow_uuid = 'webhook-delivery:' || d.id
    LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
    WHERE d.event_id = ANY(${sql.array(eventIds, 'uuid')}) AND d.redelivery_of IS NULL`);
  return new Map((rows as unknown as Stages[]).map((r) => [r.eventId, r]));
}

// ---------------------------------------------------------------------------------------------------------

async function throughput(f: Fixture, receiver: Receiver) {
  const route = '/engine';
  const cpu = cpuMeter();
  const t0 = wall();
  const ids = await commitEvents(f, EVENTS, BATCH);
  const committedAt = wall();
  const complete = await receiver.waitFor(route, ids, TIMEOUT_MS);
  const arrivals = receiver.arrivals(route);
  const got = ids.filter((id) => arrivals.has(id));
  const last = Math.max(...got.map((id) => arrivals.get(id)!));
  const usage = cpu();
  await settled(f.pool, TIMEOUT_MS);
  if (!complete) console.error(`WARNING: only ${got.length}/${ids.length} deliveries arrived within ${TIMEOUT_MS} ms`);

  const stages = [...(await stagesOf(f.pool, ids)).values()];
  const at = (values: (number | null)[], pick: (v: number[]) => number) => {
    const v = values.filter((x): x is number => x != null);
    return v.length ? Math.round(pick(v) - t0) : null;
  };
  const elapsedMs = last - t0;
  return {
    events: ids.length,
    delivered: got.length,
    duplicates: receiver.duplicates(route),
    sockets: receiver.sockets(route),
    elapsedMs: Math.round(elapsedMs),
    rate: round((got.length / elapsedMs) * 1000),
    // Milestones after the first commit began, ms: the last commit, the last delivery row written by the
    // dispatcher, the last process started, the first and last attempt begun, the last receipt.
    timeline: {
      commitsDoneMs: Math.round(committedAt - t0),
      lastDispatchedMs: at(stages.map((s) => s.dispatched), (v) => Math.max(...v)),
      lastProcessStartedMs: at(stages.map((s) => s.processStarted), (v) => Math.max(...v)),
      firstAttemptMs: at(stages.map((s) => s.attemptStarted), (v) => Math.min(...v)),
      lastAttemptMs: at(stages.map((s) => s.attemptStarted), (v) => Math.max(...v)),
      lastReceiptMs: Math.round(elapsedMs),
      lastSettledMs: at(stages.map((s) => s.completed), (v) => Math.max(...v)),
    },
    ...usage,
    ids,
  };
}

/** The same events as the engine sends them (findTarget's shape), for the baseline. */
async function eventsOf(f: Fixture, ids: string[]): Promise<WebhookEvent[]> {
  const rows = await f.pool.any(sql.unsafe`
    SELECT id, type, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "occurredAt", data
    FROM events WHERE id = ANY(${sql.array(ids, 'uuid')}) ORDER BY sequence`);
  return rows as unknown as WebhookEvent[];
}

/**
 * A bare loop: `concurrency` workers building, signing and POSTing the events with undici (over and over, a
 * fresh delivery id each time) for `seconds`; rate = requests answered / elapsed.
 */
async function postLoop(receiver: Receiver, route: string, events: WebhookEvent[], secret: string, concurrency: number, seconds: number) {
  const url = `${receiver.url}${route}`;
  let next = 0;
  let failures = 0;
  const cpu = cpuMeter();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      const event = events[next++ % events.length]!;
      const { body, headers } = buildWebhookRequest(event, randomUUID(), [secret]);
      const res = await request(url, { method: 'POST', body, headers });
      await res.body.text();
      if (res.statusCode !== 200) failures++;
    }
  }));
  const elapsedMs = performance.now() - t0;
  const usage = cpu();
  if (failures || receiver.requests(route) !== next) throw new Error(`baseline: ${failures} failures, ${receiver.requests(route)}/${next} arrived`);
  return { events: next, delivered: next, sockets: receiver.sockets(route), elapsedMs: Math.round(elapsedMs), rate: round((next / elapsedMs) * 1000), ...usage };
}

/** The loop over the engine's events, after a warm-up (JIT, connections). */
async function baseline(receiver: Receiver, events: WebhookEvent[], secret: string, concurrency: number) {
  await postLoop(receiver, `/baseline/${concurrency}/warm`, events, secret, concurrency, 1);
  return postLoop(receiver, `/baseline/${concurrency}`, events, secret, concurrency, BASELINE_SECONDS);
}

async function latency(f: Fixture, receiver: Receiver) {
  const route = '/engine';
  const count = Math.round(RATE * SECONDS);
  const committed = new Map<string, number>();
  const cpu = cpuMeter();
  const start = performance.now();
  // Open loop: each commit fires at its scheduled time, whether or not the previous one has returned.
  const commits = Array.from({ length: count }, async (_, i) => {
    const due = start + (i * 1000) / RATE;
    await sleep(Math.max(0, due - performance.now()));
    const id = await f.pool.transaction(async (trx) => (await recordChange(trx, change(f))).eventId);
    committed.set(id, wall());
  });
  await Promise.all(commits);
  const ids = [...committed.keys()];
  const complete = await receiver.waitFor(route, ids, 30_000);
  const usage = cpu();
  await settled(f.pool, TIMEOUT_MS);
  const arrivals = receiver.arrivals(route);
  const stages = await stagesOf(f.pool, ids);
  const got = ids.filter((id) => arrivals.has(id));
  if (!complete) console.error(`WARNING: only ${got.length}/${ids.length} latency events arrived`);

  // Cumulative ms after the commit returned: delivery row written (the dispatcher's transaction began),
  // process started (DBOS workflow row), first attempt begun (the activity is about to POST), receipt.
  const since = (pick: (s: Stages) => number | null) => got.map((id) => {
    const v = pick(stages.get(id)!);
    return v == null ? NaN : v - committed.get(id)!;
  }).filter((v) => !Number.isNaN(v));
  const summary = (values: number[]) => ({ p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)) });
  const endToEnd = got.map((id) => arrivals.get(id)! - committed.get(id)!);
  return {
    events: count,
    delivered: got.length,
    ...summary(endToEnd),
    stages: {
      dispatched: summary(since((s) => s.dispatched)),
      processStarted: summary(since((s) => s.processStarted)),
      attemptStarted: summary(since((s) => s.attemptStarted)),
      received: summary(endToEnd),
    },
    ...usage,
  };
}

// ---------------------------------------------------------------------------------------------------------

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-pg-'));
  cleanups.push(() => fs.rm(tmp, { recursive: true, force: true }));
  await fs.chmod(tmp, 0o711); // the postgres OS user must traverse it
  const db = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg') });
  cleanups.push(() => db.stop());
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('CREATE DATABASE iam_bench');
  await admin.end();
  const databaseUrl = db.url.replace(/\/postgres$/, '/iam_bench');
  await migrate(databaseUrl);

  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const service = await startBenchAppWithProcesses(databaseUrl, {
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent',
  });
  cleanups.push(() => service.close());

  const { tenantId, organizationId } = service.credentials;
  const headers = { authorization: `Bearer ${await service.token()}` };
  const tenantRes = await service.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}`, headers });
  if (tenantRes.statusCode !== 200) throw new Error(`GET tenant: ${tenantRes.statusCode} ${tenantRes.body}`);
  const f: Fixture = { pool: service.pool, tenantId, organizationId, tenant: (tenantRes.json() as { tenant: Record<string, unknown> }).tenant };
  const created = await service.app.inject({
    method: 'POST', url: `/v1/tenants/${tenantId}/webhooks`, headers, payload: { url: `${receiver.url}/engine`, eventTypes: ['tenant.*'] },
  });
  if (created.statusCode !== 201) throw new Error(`POST webhook: ${created.statusCode} ${created.body}`);
  const { secret } = created.json() as { secret: string };

  // Warm-up: the first deliveries pay for connections, JIT and DBOS' first queries.
  const warm = await commitEvents(f, WARMUP_EVENTS, 10);
  if (!(await receiver.waitFor('/engine', warm, 30_000))) throw new Error('warm-up deliveries did not arrive');
  await settled(f.pool, 30_000);

  const engine = await throughput(f, receiver);
  const events = await eventsOf(f, engine.ids);
  const base = await baseline(receiver, events, secret, CONCURRENCY);
  // The same loop with only as many workers as the engine used connections: concurrency alone does not explain the gap.
  const narrow = await baseline(receiver, events, secret, Math.max(1, engine.sockets));
  const lat = await latency(f, receiver);

  const ratio = round(engine.rate / base.rate, 2);
  const ok = { ratio: ratio >= TARGETS.ratio, p50: lat.p50 <= TARGETS.p50Ms, p99: lat.p99 <= TARGETS.p99Ms };
  const pad = (s: unknown, n: number) => String(s).padStart(n);
  /** CPU ms (this process and Postgres) per request or delivery. */
  const cpuEach = (r: { delivered: number; nodeCpuS: number; postgresCpuS: number }) => ((r.nodeCpuS + r.postgresCpuS) * 1000) / r.delivered;
  console.log(`\nWebhook deliveries: ${EVENTS} events (transactions of ${BATCH}), ${os.cpus().length} CPUs, pg pool ${service.config.databasePoolSize}, `
    + `dispatch poll ${service.config.webhooks.dispatchPollMs} ms`);
  console.log(`${''.padEnd(48)}${pad('requests', 9)}${pad('ms', 7)}${pad('per s', 9)}${pad('sockets', 8)}${pad('node CPU s', 11)}${pad('pg CPU s', 9)}${pad('CPU ms each', 12)}${pad('other CPU', 10)}`);
  const row = (name: string, r: { delivered: number; elapsedMs: number; rate: number; sockets: number; nodeCpuS: number; postgresCpuS: number; otherCpu: number }) =>
    console.log(`${name.padEnd(48)}${pad(r.delivered, 9)}${pad(r.elapsedMs, 7)}${pad(r.rate, 9)}${pad(r.sockets, 8)}${pad(r.nodeCpuS.toFixed(2), 11)}`
      + `${pad(r.postgresCpuS.toFixed(2), 9)}${pad(cpuEach(r).toFixed(3), 12)}${pad(r.otherCpu.toFixed(2), 10)}`);
  row(`baseline (undici, ${CONCURRENCY} concurrent workers)`, base);
  row(`baseline (undici, ${Math.max(1, engine.sockets)} workers = engine's sockets)`, narrow);
  row('engine (commit -> dispatcher -> DBOS -> POST)', engine);
  const quiet = Math.max(base.otherCpu, narrow.otherCpu, engine.otherCpu, lat.otherCpu) <= 0.1;
  if (!quiet) console.log('WARNING: other processes used CPU during the runs (cores, "other CPU"); the figures are unreliable.');
  console.log(`ratio engine/baseline: ${ratio.toFixed(2)} (target >= ${TARGETS.ratio}) ${ok.ratio ? 'OK' : 'BELOW TARGET'}`
    + `${engine.duplicates ? `; ${engine.duplicates} duplicate deliveries` : ''}`);
  const t = engine.timeline;
  console.log(`engine timeline (ms after the first commit began): commits done ${t.commitsDoneMs}, last dispatched ${t.lastDispatchedMs}, `
    + `last process started ${t.lastProcessStartedMs}, attempts ${t.firstAttemptMs}..${t.lastAttemptMs}, last receipt ${t.lastReceiptMs}, last settled ${t.lastSettledMs}`);
  console.log(`\nLatency: ${lat.events} events at ${RATE}/s for ${SECONDS} s, each its own transaction; ms after the commit returned`);
  console.log(`${''.padEnd(48)}${pad('p50', 8)}${pad('p99', 8)}${pad('max', 8)}`);
  const stage = (name: string, s: { p50: number; p99: number; max: number }) => console.log(`${name.padEnd(48)}${pad(s.p50, 8)}${pad(s.p99, 8)}${pad(s.max, 8)}`);
  stage('  delivery row written (dispatcher tx began)', lat.stages.dispatched);
  stage('  process started (DBOS workflow created)', lat.stages.processStarted);
  stage('  first attempt begun', lat.stages.attemptStarted);
  stage('commit -> receiver arrival', lat.stages.received);
  console.log(`p50 ${lat.p50} ms (target <= ${TARGETS.p50Ms}) ${ok.p50 ? 'OK' : 'ABOVE TARGET'}, p99 ${lat.p99} ms (target <= ${TARGETS.p99Ms}) ${ok.p99 ? 'OK' : 'ABOVE TARGET'}`
    + `; delivered ${lat.delivered}/${lat.events}; CPU node ${lat.nodeCpuS} s, pg ${lat.postgresCpuS} s, other ${lat.otherCpu} cores\n`);
  const engineResult: Partial<typeof engine> = { ...engine };
  delete engineResult.ids;
  console.log(`RESULT ${JSON.stringify({
    bench: 'webhooks', cpus: os.cpus().length, events: EVENTS, batch: BATCH, baselineConcurrency: CONCURRENCY,
    baseline: base, baselineAtEngineSockets: narrow, engine: engineResult, ratio, latency: lat, targets: TARGETS, ok: ok.ratio && ok.p50 && ok.p99, quiet,
  })}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
