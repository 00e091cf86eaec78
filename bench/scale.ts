// `npm run bench:scale`: three API instances and two workers (the Temporal shape, as child processes) over one
// embedded Postgres and one Temporal dev server, under mixed load for SCALE_DURATION_S seconds (default 30); a third of
// the way in one API instance and one worker are killed with SIGKILL, two thirds in they are started again. Prints
// requests/s (total and per instance), latency, lost writes, webhook delivery lag, revocation propagation and how a
// per-credential rate limit counts across instances. The same checks, shorter: test/temporal/scale-out.test.ts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflows } from '../worker/bundle.ts';
import { findOrInstallTemporal, freePort, startDevServer } from '../scripts/temporal-cli.ts';
import { startBenchDatabase } from './database.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { startCluster } from './scale/cluster.ts';
import { drive, prepare, WEBHOOK_ROUTE } from './scale/load.ts';
import { lostWrites, rateLimitAcrossInstances, revocationPropagation, subscribedEventIds } from './scale/checks.ts';
import { must } from './scale/client.ts';

const durationMs = Number(process.env.SCALE_DURATION_S ?? 30) * 1000;
const concurrency = Number(process.env.SCALE_CONCURRENCY ?? 12);
const cleanups: (() => Promise<unknown>)[] = [];
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const temporal = await startDevServer({ cli: findOrInstallTemporal(console.log), port: await freePort() });
  cleanups.push(() => temporal.stop());
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-scale-bundle-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const bundlePath = path.join(dir, 'workflows-bundle.js');
  await fs.writeFile(bundlePath, (await bundleWorkflows()).code);
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const cluster = await startCluster({
    databaseUrl,
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    bundlePath,
    apis: 3,
    workers: 2,
    env: { RATE_LIMIT_MAX: '1000000', LOG_LEVEL: 'warn', WEBHOOK_RETRY_SCHEDULE: '1s,1s,2s,5s' },
  });
  cleanups.push(() => cluster.close());
  const workload = await prepare(cluster, receiver.url);

  const started = Date.now();
  const load = drive(cluster, workload, { concurrency, until: () => Date.now() - started > durationMs });
  await wait(durationMs / 3);
  const [, api] = cluster.apis;
  const [worker] = cluster.workers;
  await Promise.all([cluster.kill(api!), cluster.kill(worker!)]);
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s: killed ${api!.name} and ${worker!.name} (SIGKILL)`);
  await wait(durationMs / 3 - (Date.now() - started - durationMs / 3));
  await Promise.all([cluster.start(api!), cluster.start(worker!)]);
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s: ${api!.name} and ${worker!.name} started again`);
  const ledger = await load;

  const seconds = ledger.elapsedMs / 1000;
  const answered = Object.values(ledger.perInstance).reduce((a, b) => a + b, 0);
  console.log(`\n${answered} requests answered in ${seconds.toFixed(1)} s by 3 instances: ${(answered / seconds).toFixed(0)} req/s in all`);
  for (const [name, n] of Object.entries(ledger.perInstance).sort()) console.log(`  ${name}: ${(n / seconds).toFixed(0)} req/s`);
  console.log(`latency p50 ${pct(ledger.latenciesMs, 50).toFixed(1)} ms, p99 ${pct(ledger.latenciesMs, 99).toFixed(1)} ms`);
  console.log('answers by operation and status:', JSON.stringify(ledger.statuses));

  const lost = await lostWrites(cluster, workload, ledger);
  console.log(`acknowledged writes: ${ledger.users.length + ledger.tenants.length}, lost: ${lost.length}`);
  const ids = await subscribedEventIds(cluster, workload);
  const allArrived = await receiver.waitFor(WEBHOOK_ROUTE, ids, 120_000);
  const arrivals = receiver.arrivals(WEBHOOK_ROUTE);
  const lags: number[] = [];
  const events = await must(200, cluster.apis[0]!.url, 'GET', `/v1/tenants/${workload.tenantId}/events?type=directory.*&limit=200`, workload.token);
  for (const e of events.events as { id: string; occurredAt: string }[]) {
    const at = arrivals.get(e.id);
    if (at) lags.push(at - Date.parse(e.occurredAt));
  }
  console.log(
    `events: ${ids.length}, delivered: ${ids.filter((id) => arrivals.has(id)).length}${allArrived ? '' : ' (NOT ALL)'}, duplicates (same event id): ${receiver.duplicates(WEBHOOK_ROUTE)}`,
  );
  console.log(`delivery lag (first 200 events, commit to arrival): p50 ${pct(lags, 50).toFixed(0)} ms, p99 ${pct(lags, 99).toFixed(0)} ms`);
  const delays = await revocationPropagation(cluster, workload);
  console.log(`revocation on api-1 refused by the others after: ${delays.map((d) => `${d.toFixed(1)} ms`).join(', ')}`);
  const limit = await rateLimitAcrossInstances(cluster, workload, 30, 60);
  console.log(`a secret limited to 30/min, 60 requests over 3 instances: ${limit.ok} answered 200, ${limit.limited} answered 429`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error(e));
}
