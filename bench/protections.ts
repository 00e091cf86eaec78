// `npm run bench:protections`: issue 19's sign-in protections, each figure beside its baseline measured in the same run.
// Password sign-in attempts/s through the hosted pages (a fresh interaction each: GET /auth, the identifier page, POST
// …/login; wrong and right passwords in turn, each from its own IP address) on an environment with all six protection
// policies on (bench/protections/setup.ts: brute force counting without locking, rate limit not denying, bot
// detection silent, device risk, restrictions with lists, breached passwords) beside one with none, in one process:
// the ratio on/off against the 0.7 target. And the policy evaluation itself: the wall time of each pipeline call
// (before, failed, succeeded: api/protections/pipeline.ts's EvaluationTimings) during the `on` runs, p99 against 2 ms,
// and again with one attempt in flight (its own cost, not its wait behind the other attempts' work).
// Whichever policies' hooks exist are measured. BENCH_DURATION (s per load, default 5), BENCH_USERS (attempts in
// flight, default 4: argon2 runs on libuv's 4 threads, more only queue) and BENCH_IDENTIFIERS (users per environment, default 500) tune it.
import os from 'node:os';
import { sql } from 'slonik';
import { startBenchDatabase } from './database.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';
import { startAttemptWorker } from './protections/attempt-worker.ts';
import type { AttemptLoadOptions, AttemptLoadResult } from './protections/attempt-load.ts';
import { startProtectionsBench } from './protections/setup.ts';
import { timingCollector } from './protections/timings.ts';
import type { Latencies } from './sign-in/page-load.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const USERS = Number(process.env.BENCH_USERS ?? 4);
const IDENTIFIERS = Number(process.env.BENCH_IDENTIFIERS ?? 500);
const WARMUP = 2;
const TARGETS = { ratio: 0.7, evaluationP99Ms: 2 };

const worker = startAttemptWorker();
const cleanups: (() => Promise<unknown>)[] = [worker.close];

try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const timings = timingCollector();
  const { service, on, off } = await startProtectionsBench(databaseUrl, timings, IDENTIFIERS);
  cleanups.push(() => service.close());
  const load = (env: typeof on, duration: number): AttemptLoadOptions => ({
    authorizeUrl: env.authorizeUrl,
    identifiers: env.identifiers,
    password: 'correct horse battery staple',
    users: USERS,
    duration,
  });

  let otherCpu = 0;
  const run = async (options: AttemptLoadOptions) => {
    const before = { tree: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() };
    const result = await worker.run(options);
    const seconds = (performance.now() - before.at) / 1000;
    const other = Math.max(0, machineBusySeconds() - before.machine - (treeCpuSeconds(process.pid) - before.tree));
    otherCpu = Math.max(otherCpu, Math.round((other / seconds) * 100) / 100);
    if (result.errors) throw new Error(`${result.errors} failed attempts, the first: ${result.firstError}`);
    return result;
  };

  // Warm-up of both; the `on` environment must really have counted (the policies reached its pages).
  await run(load(off, WARMUP));
  await run(load(on, WARMUP));
  const counted = await service.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM sign_in_failures WHERE environment_id = ${on.environmentId}`);
  if (!counted) throw new Error('the brute-force policy counted nothing on the `on` environment: the policies did not reach its sign-in pages');

  // Interleaved, each side's better run of two (on a small machine one run of either can lose a core for a while).
  const offRuns: AttemptLoadResult[] = [];
  const onRuns: AttemptLoadResult[] = [];
  const evaluations: Latencies[] = [];
  for (let i = 0; i < 2; i++) {
    offRuns.push(await run(load(off, DURATION)));
    timings.reset();
    onRuns.push(await run(load(on, DURATION)));
    evaluations.push(timings.take());
  }
  // The evaluation once more with one attempt in flight: its own cost, without queueing behind the other attempts.
  timings.reset();
  const single = await run({ ...load(on, DURATION), users: 1 });
  const evaluationAlone = timings.take();
  const better = (runs: AttemptLoadResult[]) => runs.reduce((a, b) => (b.attemptsPerSecond > a.attemptsPerSecond ? b : a));
  const allOff = better(offRuns);
  const allOn = better(onRuns);
  const evaluation = evaluations.reduce((a, b) => (b.p99 < a.p99 ? b : a));
  const ratio = Math.round((allOn.attemptsPerSecond / allOff.attemptsPerSecond) * 100) / 100;

  const ms = (l: Latencies) => `p50 ${l.p50} ms, p95 ${l.p95} ms, p99 ${l.p99} ms`;
  const answers = (r: AttemptLoadResult) =>
    Object.entries(r.statuses)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
  const rows: [string, string, string][] = [
    ['baseline: all six policies off', `${allOff.attemptsPerSecond} attempts/s; POST ${ms(allOff.login)}`, ''],
    ['    answers', answers(allOff), ''],
    [
      'all six policies on',
      `${allOn.attemptsPerSecond} attempts/s; POST ${ms(allOn.login)}`,
      `ratio >= ${TARGETS.ratio}: ${ratio} ${ratio >= TARGETS.ratio ? 'OK' : 'BELOW TARGET'}`,
    ],
    ['    answers', answers(allOn), ''],
    [
      'policy evaluation (per pipeline call)',
      `${ms(evaluation)}, max ${evaluation.max} ms (${evaluation.n} calls)`,
      `p99 <= ${TARGETS.evaluationP99Ms} ms: ${evaluation.p99 <= TARGETS.evaluationP99Ms ? 'OK' : 'ABOVE TARGET'}`,
    ],
    [
      '    with 1 attempt in flight',
      `${ms(evaluationAlone)}, max ${evaluationAlone.max} ms (${evaluationAlone.n} calls; ${single.attemptsPerSecond} attempts/s)`,
      `p99 <= ${TARGETS.evaluationP99Ms} ms: ${evaluationAlone.p99 <= TARGETS.evaluationP99Ms ? 'OK' : 'ABOVE TARGET'}`,
    ],
  ];
  console.log(
    `\nProtections: ${USERS} attempts in flight, ${IDENTIFIERS} users per environment, ${DURATION} s per load after ${WARMUP} s warm-up; ${os.cpus().length} CPUs`,
  );
  for (const [name, figure, target] of [['', 'measured', 'target'] as const, ...rows]) console.log(`${name.padEnd(42)}${figure.padEnd(72)}${target}`);
  if (otherCpu > 0.1) console.log(`WARNING: other processes used up to ${otherCpu} cores during the runs; figures are unreliable.`);
  console.log(
    `\nRESULT ${JSON.stringify({ bench: 'protections', users: USERS, identifiers: IDENTIFIERS, allOff, allOn, ratio, evaluation, evaluationAlone, otherCpu, targets: TARGETS })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
