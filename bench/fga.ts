// FGA at /v1/fga over a store of about 1 000 000 tuples (bench/fga/seed.ts: teams, a three-level folder hierarchy,
// 390 000 documents): (a) check req/s against a bare Fastify route returning the same JSON, the same check each time
// (a grant three folders up, through a team); (b) p99 at half the service's rate of that check, and of a mix of
// 5 000 distinct checks (granted and denied, through every path of the model) once each has been asked, and the
// mix asking HIGHER_CONSISTENCY (no per-instance cache: every look-up reads Postgres) at BENCH_STRONG_RATE (default
// 200/s), each beside the bare route paced at the same rate (what the host and the load generator allow), with this
// process's largest event-loop delay and the CPU other processes used meanwhile; (c) list-objects of a user's viewable
// documents (about 4 000 candidates, the first 1 000 answered) and (d) writes of 100 new tuples: p50/p95 of
// sequential requests. The load generator runs in a child process. BENCH_DURATION (s, default 10),
// BENCH_CONNECTIONS (default 50), BENCH_HALF_CONNECTIONS (default 10) and BENCH_SAMPLES (default 200) tune it.
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { transformer } from '@openfga/syntax-transformer';
import { startBenchApp } from './app.ts';
import { startLoadWorker } from './load-worker.ts';
import { startBenchDatabase } from './database.ts';
import { sequentialLatency } from './sequential-latency.ts';
import { baseUrl, jsonLoad, startJsonBaseline } from './json-load.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';
import { directViewerOf, FGA_MODEL_DSL, leafOf, memberOf, ownerOf, rootOf, sectionOf, seedFgaStore, SHAPE, TUPLE_COUNT, teamOfRoot } from './fga/seed.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const HALF_CONNECTIONS = Number(process.env.BENCH_HALF_CONNECTIONS ?? 10);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 2;
const TARGETS = { ratio: 0.4, halfP99: 5, listObjectsP95: 50, writeP95: 20 };
/** Checks per second of the uncached mix (every look-up a Postgres statement). */
const STRONG_RATE = Number(process.env.BENCH_STRONG_RATE ?? 200);

// Document 4242 is in leaf 4242, section 424, root 42; root 42 is viewed by team 210, whose first member is user 4200.
const DOC = 4242;
const HIERARCHY_USER = memberOf(teamOfRoot(rootOf(sectionOf(leafOf(DOC))), 0), 0);
const check = (user: number, document: number, consistency?: string) =>
  JSON.stringify({
    tuple_key: { user: `user:u${user}`, relation: 'viewer', object: `document:d${document}` },
    ...(consistency ? { consistency } : {}),
  });

/** 5 000 checks: a fifth each through the hierarchy, by owner, by direct viewer, by section viewer… and a fifth denied. */
function checkMix(consistency?: string): string[] {
  const bodies: string[] = [];
  let seed = 7;
  const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
  for (let i = 0; i < 1000; i++) {
    const d = next(SHAPE.documents);
    const root = rootOf(sectionOf(leafOf(d)));
    bodies.push(check(memberOf(teamOfRoot(root, next(SHAPE.teamsPerRoot)), next(SHAPE.membersPerTeam)), d, consistency));
    bodies.push(check(ownerOf(d), d, consistency));
    const even = d - (d % 2);
    bodies.push(check(directViewerOf(even), even, consistency));
    bodies.push(check(next(SHAPE.users), d, consistency)); // mostly denied
    bodies.push(check(next(SHAPE.users), next(SHAPE.documents), consistency));
  }
  return bodies;
}

const load = (url: string, headers: Record<string, string>, body: string) =>
  jsonLoad(loader, { url, headers, body, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP });

/** Latencies at a fixed rate, evenly spaced (bench/paced-load.ts), with this process's event-loop delay and the other processes' CPU. */
async function paced(url: string, headers: Record<string, string>, bodies: string[], rate: number) {
  const options = { url, method: 'POST' as const, headers: { 'content-type': 'application/json', ...headers }, bodies, connections: HALF_CONNECTIONS, rate };
  await loader.paced({ ...options, duration: WARMUP });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const before = { ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() };
  delay.enable();
  const r = await loader.paced({ ...options, duration: DURATION });
  delay.disable();
  const other = machineBusySeconds() - before.machine - (treeCpuSeconds(process.pid) - before.ours);
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx`);
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return {
    ...r,
    loopDelayP99: ms(delay.percentile(99)),
    loopDelayMax: ms(delay.max),
    otherCpu: Math.max(0, Math.round((other / ((performance.now() - before.at) / 1000)) * 100) / 100),
  };
}

const loader = startLoadWorker();
const cleanups: (() => Promise<unknown>)[] = [loader.close];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const service = await startBenchApp(databaseUrl);
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { environmentId } = service.credentials;
  let seeded = performance.now();
  const { secret } = await seedFgaStore(service.pool, environmentId);
  seeded = Math.round(performance.now() - seeded);

  const url = baseUrl(service.app);
  const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const stores = (await (await fetch(`${url}/v1/fga/stores`, { headers: auth })).json()) as { stores: { id: string }[] };
  const storeUrl = `${url}/v1/fga/stores/${stores.stores[0]!.id}`;
  const written = await fetch(`${storeUrl}/authorization-models`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(transformer.transformDSLToJSONObject(FGA_MODEL_DSL)),
  });
  if (written.status !== 201) throw new Error(`writing the model answered ${written.status}: ${await written.text()}`);

  // Both servers must give the same answer, or the comparison means nothing.
  const body = check(HIERARCHY_USER, DOC);
  const first = await fetch(`${storeUrl}/check`, { method: 'POST', headers: auth, body });
  const answer = (await first.json()) as { allowed: boolean };
  const path = new URL(`${storeUrl}/check`).pathname;
  const baseline = await startJsonBaseline(path, answer);
  cleanups.push(() => baseline.close());
  const checked = await (await fetch(`${baseUrl(baseline)}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
  if (first.status !== 200 || !isDeepStrictEqual(answer, checked) || answer.allowed !== true) {
    throw new Error(`answers differ or deny: service ${first.status} ${JSON.stringify(answer)} / baseline ${JSON.stringify(checked)}`);
  }

  // Each side's best of two interleaved runs: on a small machine one run of either can lose a core for a while.
  const best = (a: Awaited<ReturnType<typeof load>>, b: Awaited<ReturnType<typeof load>>) => (a.rps >= b.rps ? a : b);
  const runs = [];
  for (let i = 0; i < 2; i++) runs.push([await load(`${baseUrl(baseline)}${path}`, {}, body), await load(`${storeUrl}/check`, auth, body)]);
  const base = best(runs[0]![0]!, runs[1]![0]!);
  const svc = best(runs[0]![1]!, runs[1]![1]!);
  const ratio = Math.round((svc.rps / base.rps) * 100) / 100;
  const halfRate = Math.round(svc.rps / 2);
  const bareUrl = `${baseUrl(baseline)}${path}`;
  const bareHalf = await paced(bareUrl, {}, [body], halfRate);
  const half = await paced(`${storeUrl}/check`, auth, [body], halfRate);
  // The mix: asked once each first (the cache then holds them, as it would a service's working set), then paced.
  const mix = checkMix();
  let granted = 0;
  for (let i = 0; i < mix.length; i += 50) {
    const answers = await Promise.all(
      mix.slice(i, i + 50).map((b) => fetch(`${storeUrl}/check`, { method: 'POST', headers: auth, body: b }).then((r) => r.json())),
    );
    granted += answers.filter((r) => (r as { allowed: boolean }).allowed).length;
  }
  const bareWarm = await paced(bareUrl, {}, mix, halfRate);
  const warm = await paced(`${storeUrl}/check`, auth, mix, halfRate);
  const bareStrong = await paced(bareUrl, {}, mix, STRONG_RATE);
  const strong = await paced(`${storeUrl}/check`, auth, checkMix('HIGHER_CONSISTENCY'), STRONG_RATE);

  const listObjects = await sequentialLatency(
    `${storeUrl}/list-objects`,
    (i) => ({
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'document', relation: 'viewer', user: `user:u${(i * 97) % 5000}` }),
    }),
    SAMPLES,
    10,
  );
  const probe = (await (
    await fetch(`${storeUrl}/list-objects`, { method: 'POST', headers: auth, body: JSON.stringify({ type: 'document', relation: 'viewer', user: 'user:u42' }) })
  ).json()) as { objects: string[] };
  const write = await sequentialLatency(
    `${storeUrl}/write`,
    (i) => ({
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        writes: { tuple_keys: Array.from({ length: 100 }, (_, k) => ({ user: `user:u${k}`, relation: 'viewer', object: `document:new-${i}-${k}` })) },
      }),
    }),
    SAMPLES,
    10,
  );

  const otherCpu = Math.max(base.otherCpu, svc.otherCpu);
  const verdict = (ok: boolean) => (ok ? 'OK' : 'BELOW TARGET');
  const rows: [string, string, string, string][] = [
    ['baseline: bare Fastify, same JSON', `${base.rps} req/s, p99 ${base.p99} ms`, '', ''],
    [
      '(a) POST …/check, one check',
      `${svc.rps} req/s, p99 ${svc.p99} ms`,
      `ratio >= ${TARGETS.ratio}`,
      `${ratio.toFixed(2)} ${verdict(ratio >= TARGETS.ratio)}`,
    ],
    [
      `(b) the same check at half rate (${halfRate}/s)`,
      `p50 ${half.p50} ms, p99 ${half.p99} ms`,
      `p99 <= ${TARGETS.halfP99} ms`,
      verdict(half.p99 <= TARGETS.halfP99),
    ],
    ['    bare route at the same rate', `p50 ${bareHalf.p50} ms, p99 ${bareHalf.p99} ms`, '', ''],
    ['(b) 5 000 distinct checks at half rate', `p50 ${warm.p50} ms, p99 ${warm.p99} ms`, `p99 <= ${TARGETS.halfP99} ms`, verdict(warm.p99 <= TARGETS.halfP99)],
    ['    bare route at the same rate', `p50 ${bareWarm.p50} ms, p99 ${bareWarm.p99} ms`, '', ''],
    [`(b) … HIGHER_CONSISTENCY at ${STRONG_RATE}/s`, `p50 ${strong.p50} ms, p99 ${strong.p99} ms`, '(reads Postgres)', ''],
    ['    bare route at the same rate', `p50 ${bareStrong.p50} ms, p99 ${bareStrong.p99} ms`, '', ''],
    [
      `(c) list-objects (${probe.objects.length} answered)`,
      `p50 ${listObjects.p50} ms, p95 ${listObjects.p95} ms`,
      `p95 <= ${TARGETS.listObjectsP95} ms`,
      verdict(listObjects.p95 <= TARGETS.listObjectsP95),
    ],
    ['(d) write of 100 tuples', `p50 ${write.p50} ms, p95 ${write.p95} ms`, `p95 <= ${TARGETS.writeP95} ms`, verdict(write.p95 <= TARGETS.writeP95)],
  ];
  console.log(
    `\nFGA: ${TUPLE_COUNT} tuples (${SHAPE.documents} documents, ${SHAPE.users} users, ${SHAPE.teams} teams; seeded in ${seeded} ms); ` +
      `${granted} of the mix's 5 000 checks granted; ${CONNECTIONS} connections, ${DURATION} s per load after ${WARMUP} s warm-up; ` +
      `${SAMPLES} sequential requests per latency; ${os.cpus().length} CPUs`,
  );
  for (const [name, figure, target, result] of [['', 'measured', 'target', ''] as const, ...rows]) {
    console.log(`${name.padEnd(44)}${figure.padEnd(40)}${target.padEnd(18)}${result}`);
  }
  if (otherCpu > 0.1) console.log(`WARNING: other processes used ${otherCpu} cores during the load runs; throughput figures are unreliable.`);
  const pacedRuns = { bareHalf, half, bareWarm, warm, bareStrong, strong };
  console.log('(b) per paced run: largest event-loop delay of this process (service and bare route) / of the load generator, ms; generator cores:');
  for (const [name, r] of Object.entries(pacedRuns)) {
    console.log(`    ${name.padEnd(11)} ${String(r.loopDelayMax).padStart(8)} / ${String(r.generator.loopDelayMax).padStart(8)}  ${r.generator.cpu}`);
  }
  const pacedOther = Math.max(...Object.values(pacedRuns).map((r) => r.otherCpu));
  if (pacedOther > 0.1) console.log(`WARNING: other processes used up to ${pacedOther} cores during the paced runs; their tails are the host's.`);
  console.log(
    `\nRESULT ${JSON.stringify({ bench: 'fga', tuples: TUPLE_COUNT, baseline: base, service: svc, ratio, ...pacedRuns, listObjects, write, otherCpu, targets: TARGETS })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
