// AuthZEN at /access/v1 over a model of 10k users (with emails), 100 roles and 100k resource instances:
// (a) evaluation req/s against a bare Fastify route returning the same JSON, and p99 at half the service's max
// rate; (b) a batch of 100 evaluations, (c) the first page of a resource search, (d) a directory user search by
// email prefix: p50/p95 of sequential requests. The load generator (autocannon) runs in a child process, so it
// never shares the event loop it measures. BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_HALF_CONNECTIONS (default 10) and BENCH_SAMPLES (sequential requests per latency figure, default 300) tune it.
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { startBenchApp } from './app.ts';
import { startLoadWorker } from './load-worker.ts';
import { startBenchDatabase } from './database.ts';
import { baseUrl, jsonLoad, startJsonBaseline } from './json-load.ts';
import { RESOURCES, ROLES, USERS, seedBenchModel } from './authzen/seed.ts';
import { sequentialLatency } from './sequential-latency.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const HALF_CONNECTIONS = Number(process.env.BENCH_HALF_CONNECTIONS ?? 10);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARMUP = 2;
const TARGETS = { ratio: 0.5, halfP99: 5, batchP95: 10, searchP95: 20, emailP95: 10 };

const EVALUATION = { subject: { type: 'user', id: 'user42' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-4242' } };
const BATCH = {
  subject: { type: 'user', id: 'user42' },
  action: { name: 'read' },
  evaluations: Array.from({ length: 100 }, (_, i) => ({ resource: { type: 'document', id: `doc-${i * 997 + 1}` } })),
};
const SEARCH = { subject: { type: 'user', id: 'user42' }, action: { name: 'read' }, resource: { type: 'document' }, page: { limit: 50 } };
const OWNED_SEARCH = { ...SEARCH, action: { name: 'delete' } };

// At half the rate, as a gateway's pool would: HALF_CONNECTIONS keep-alive connections (50 sockets each sending a
// burst per tick measure the load generator's bursts, not the service).
const load = (url: string, headers: Record<string, string>, body: string, overallRate?: number) =>
  jsonLoad(loader, {
    url,
    headers,
    body,
    connections: overallRate ? HALF_CONNECTIONS : CONNECTIONS,
    duration: DURATION,
    warmup: overallRate ? 0 : WARMUP,
    overallRate,
  });

const loader = startLoadWorker();
const cleanups: (() => Promise<unknown>)[] = [loader.close];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const service = await startBenchApp(databaseUrl);
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { tenantId, environmentId } = service.credentials;
  let seeded = performance.now();
  const { secret } = await seedBenchModel(service.pool, environmentId);
  seeded = Math.round(performance.now() - seeded);

  const url = baseUrl(service.app);
  const auth = { authorization: `Bearer ${secret}` };
  const post = (path: string, body: unknown) => ({
    url: `${url}/access/v1/${path}`,
    init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) },
  });

  // The first decision compiles the model; both servers must give the same answer, or the comparison means nothing.
  let compiled = performance.now();
  const first = await fetch(post('evaluation', EVALUATION).url, post('evaluation', EVALUATION).init);
  compiled = Math.round(performance.now() - compiled);
  const answer = await first.json();
  const baseline = await startJsonBaseline('/access/v1/evaluation', answer);
  cleanups.push(() => baseline.close());
  const check = await fetch(`${baseUrl(baseline)}/access/v1/evaluation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(EVALUATION),
  });
  const checked = await check.json();
  if (first.status !== 200 || !isDeepStrictEqual(answer, checked) || (answer as { decision: boolean }).decision !== true) {
    throw new Error(`answers differ or deny: service ${first.status} ${JSON.stringify(answer)} / baseline ${JSON.stringify(checked)}`);
  }

  const body = JSON.stringify(EVALUATION);
  // Each side's best of two interleaved runs: on a small machine one run of either can lose a core for a while.
  const best = (a: Awaited<ReturnType<typeof load>>, b: Awaited<ReturnType<typeof load>>) => (a.rps >= b.rps ? a : b);
  const runs = [];
  for (let i = 0; i < 2; i++)
    runs.push([await load(`${baseUrl(baseline)}/access/v1/evaluation`, {}, body), await load(`${url}/access/v1/evaluation`, auth, body)]);
  const base = best(runs[0]![0]!, runs[1]![0]!);
  const svc = best(runs[0]![1]!, runs[1]![1]!);
  const half = await load(`${url}/access/v1/evaluation`, auth, body, Math.round(svc.rps / 2));
  const ratio = Math.round((svc.rps / base.rps) * 100) / 100;

  const batch = await sequentialLatency(post('evaluations', BATCH).url, post('evaluations', BATCH).init, SAMPLES);
  const search = await sequentialLatency(post('search/resource', SEARCH).url, post('search/resource', SEARCH).init, SAMPLES);
  const owned = await sequentialLatency(post('search/resource', OWNED_SEARCH).url, post('search/resource', OWNED_SEARCH).init, SAMPLES);
  const usersUrl = `${url}/v1/tenants/${tenantId}/environments/${environmentId}/directory/users?emailPrefix=user12`;
  const bearer = { authorization: `Bearer ${await service.token()}` };
  const probe = await fetch(usersUrl, { headers: bearer });
  await probe.arrayBuffer();
  const email = probe.status === 200 ? await sequentialLatency(usersUrl, { headers: bearer }, SAMPLES) : null;

  const otherCpu = Math.max(base.otherCpu, svc.otherCpu, half.otherCpu);
  const verdict = (ok: boolean) => (ok ? 'OK' : 'BELOW TARGET');
  const rows: [string, string, string, string][] = [
    ['baseline: bare Fastify, same JSON', `${base.rps} req/s, p99 ${base.p99} ms`, '', ''],
    [
      '(a) POST /access/v1/evaluation',
      `${svc.rps} req/s, p99 ${svc.p99} ms`,
      `ratio >= ${TARGETS.ratio}`,
      `${ratio.toFixed(2)} ${verdict(ratio >= TARGETS.ratio)}`,
    ],
    [
      `(a) at half rate (${Math.round(svc.rps / 2)}/s, ${HALF_CONNECTIONS} conn.)`,
      `p50 ${half.p50} ms, p99 ${half.p99} ms`,
      `p99 <= ${TARGETS.halfP99} ms`,
      verdict(half.p99 <= TARGETS.halfP99),
    ],
    ['(b) batch of 100 evaluations', `p50 ${batch.p50} ms, p95 ${batch.p95} ms`, `p95 <= ${TARGETS.batchP95} ms`, verdict(batch.p95 <= TARGETS.batchP95)],
    [
      '(c) resource search, first page',
      `p50 ${search.p50} ms, p95 ${search.p95} ms`,
      `p95 <= ${TARGETS.searchP95} ms`,
      verdict(search.p95 <= TARGETS.searchP95),
    ],
    ['(c) … owner-conditioned action', `p50 ${owned.p50} ms, p95 ${owned.p95} ms`, `p95 <= ${TARGETS.searchP95} ms`, verdict(owned.p95 <= TARGETS.searchP95)],
    email
      ? ['(d) users by email prefix', `p50 ${email.p50} ms, p95 ${email.p95} ms`, `p95 <= ${TARGETS.emailP95} ms`, verdict(email.p95 <= TARGETS.emailP95)]
      : ['(d) users by email prefix', `SKIPPED: GET …/directory/users answered ${probe.status}`, `p95 <= ${TARGETS.emailP95} ms`, ''],
  ];
  console.log(
    `\nAuthZEN: ${USERS} users, ${ROLES} roles, ${RESOURCES} documents (seeded in ${seeded} ms, model compiled on first decision: ${compiled} ms); ` +
      `${CONNECTIONS} connections, ${DURATION} s per load after ${WARMUP} s warm-up; ${SAMPLES} sequential requests per latency; ${os.cpus().length} CPUs`,
  );
  for (const [name, figure, target, result] of [['', 'measured', 'target', ''] as const, ...rows]) {
    console.log(`${name.padEnd(40)}${figure.padEnd(44)}${target.padEnd(18)}${result}`);
  }
  if (otherCpu > 0.1) console.log(`WARNING: other processes used ${otherCpu} cores during the load runs; throughput figures are unreliable.`);
  console.log(
    `\nRESULT ${JSON.stringify({ bench: 'authzen', baseline: base, service: svc, half, ratio, batch, search, owned, email, otherCpu, targets: TARGETS })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
