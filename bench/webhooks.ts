// Webhook delivery through the embedded process engine (DBOS) and the event dispatcher, end to end: events
// committed in the database until a local receiver has them. The parts are in bench/webhooks/.
//   1. Throughput, the delivery capacity on a backlog: with the processes stopped, BENCH_EVENTS (default
//      20000) tenant.updated events are committed in transactions of BENCH_BATCH (default 50); then the
//      processes are started and deliveries/s = N / (processes started -> last receipt). A second row, live:
//      the same number committed while the processes run, which is bounded by the rate of the commits.
//   2. Baselines in the same run, the same events built and signed with buildWebhookRequest and POSTed with
//      undici to the same receiver for BENCH_BASELINE_SECONDS (default 3) after a 1 s warm-up: a bare
//      sequential loop, one request at a time (the target ratio >= 0.25 is judged against it), and
//      BENCH_BASELINE_CONCURRENCY (default 10) concurrent workers, for information.
//   3. Latency: BENCH_RATE events/s (default 20) for BENCH_SECONDS (default 10), each its own transaction;
//      commit returned -> receiver arrival, p50/p99, with where the time goes (dispatch, batch process start).
//   4. Temporal, in the same run: the embedded engine stopped, a local Temporal dev server started (in memory)
//      with a worker and the dispatcher in this process (bench/webhooks/temporal.ts); the backlog throughput (1)
//      and the latency (3) again. Skipped, with the reason printed, without the Temporal CLI.
// Settings the service reads (DISPATCH_POLL_MS, DATABASE_POOL_SIZE, ...) pass through from the environment.
import { baseline } from './webhooks/baseline.ts';
import { backlog, live } from './webhooks/engine.ts';
import { eventsOf } from './webhooks/events.ts';
import { latency } from './webhooks/latency.ts';
import { report } from './webhooks/report.ts';
import { setUp } from './webhooks/setup.ts';
import { startTemporalEngine } from './webhooks/temporal.ts';
import { commitEvents, settled } from './webhooks/events.ts';
import { ENGINE_ROUTE } from './webhooks/engine.ts';

// Large enough that the one-off start (engine launch, first dispatch) does not dominate a sustained rate.
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const CONCURRENCY = Number(process.env.BENCH_BASELINE_CONCURRENCY ?? 10);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 3);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 120_000);

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const { f, receiver, service, secret, databaseUrl } = await setUp(cleanups);
  const options = { events: EVENTS, batch: BATCH, timeoutMs: TIMEOUT_MS };
  const capacity = await backlog(f, receiver, { stop: service.stopProcesses, start: service.startProcesses }, options);
  const commitBound = await live(f, receiver, options);
  const events = await eventsOf(f.pool, capacity.ids);
  const sequential = await baseline(receiver, events, secret, 1, BASELINE_SECONDS);
  const concurrent = await baseline(receiver, events, secret, CONCURRENCY, BASELINE_SECONDS);
  const lat = await latency(f, receiver, { rate: RATE, seconds: SECONDS, timeoutMs: TIMEOUT_MS });

  await service.stopProcesses();
  const engine = await startTemporalEngine({ config: service.config, pool: service.pool, databaseUrl, masterKey: service.masterKey }, cleanups);
  let temporal: Parameters<typeof report>[0]['temporal'] = null;
  if (engine) {
    await engine.start();
    // Warm-up, as for the embedded engine: the first workflow and activity tasks pay for the worker's start.
    const warm = await commitEvents(f, 50, 10);
    if (!(await receiver.waitFor(ENGINE_ROUTE, warm, 60_000))) throw new Error('Temporal warm-up deliveries did not arrive');
    await settled(f.pool, 30_000);
    const temporalBacklog = await backlog(f, receiver, engine, options);
    const temporalLatency = await latency(f, receiver, { rate: RATE, seconds: SECONDS, timeoutMs: TIMEOUT_MS });
    await engine.stop();
    temporal = { address: engine.address, backlog: temporalBacklog, latency: temporalLatency };
  } else {
    console.error('Temporal rows skipped: no Temporal CLI (.temporal/bin/temporal or temporal on PATH).');
  }
  report({
    settings: {
      events: EVENTS,
      batch: BATCH,
      concurrency: CONCURRENCY,
      rate: RATE,
      seconds: SECONDS,
      poolSize: service.config.databasePoolSize,
      dispatchPollMs: service.config.webhooks.dispatchPollMs,
    },
    sequential,
    concurrent,
    backlog: capacity,
    live: commitBound,
    latency: lat,
    temporal,
  });
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
