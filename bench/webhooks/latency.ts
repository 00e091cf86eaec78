// Latency of single events with the processes running: `rate` events/s for `seconds`, each its own
// transaction, committed on schedule (open loop); ms from the commit returned to the receiver's arrival,
// and to each stage the service records on the way.
import { commitEvent, settled, stagesOf, type Fixture, type Stages } from './events.ts';
import { ENGINE_ROUTE } from './engine.ts';
import type { Receiver } from './receiver.ts';
import { cpuMeter, sleep, summarize, wall } from './util.ts';

export async function latency(f: Fixture, receiver: Receiver, o: { rate: number; seconds: number; timeoutMs: number }) {
  const count = Math.round(o.rate * o.seconds);
  const committed = new Map<string, number>();
  const meter = cpuMeter();
  const start = performance.now();
  // Open loop: each commit fires at its scheduled time, whether or not the previous one has returned.
  const commits = Array.from({ length: count }, async (_, i) => {
    const due = start + (i * 1000) / o.rate;
    await sleep(Math.max(0, due - performance.now()));
    const id = await commitEvent(f);
    committed.set(id, wall());
  });
  await Promise.all(commits);
  const ids = [...committed.keys()];
  const complete = await receiver.waitFor(ENGINE_ROUTE, ids, 30_000);
  const usage = meter();
  await settled(f.pool, o.timeoutMs);
  const arrivals = receiver.arrivals(ENGINE_ROUTE);
  const stages = await stagesOf(f.pool, ids);
  const got = ids.filter((id) => arrivals.has(id));
  if (!complete) console.error(`WARNING: only ${got.length}/${ids.length} latency events arrived`);

  // Cumulative ms after the commit returned: delivery row written (the dispatcher's transaction began),
  // batch process started (the delivery-batch DBOS workflow created), first attempt begun, receipt.
  const since = (pick: (s: Stages) => number | null) =>
    got.flatMap((id) => {
      const s = stages.get(id);
      const v = s ? pick(s) : null;
      return v == null ? [] : [v - committed.get(id)!];
    });
  const endToEnd = got.map((id) => arrivals.get(id)! - committed.get(id)!);
  const received = summarize(endToEnd);
  return {
    events: count,
    delivered: got.length,
    batches: new Set(ids.map((id) => stages.get(id)?.batchId).filter((b) => b != null)).size,
    p50: received.p50 ?? NaN,
    p99: received.p99 ?? NaN,
    max: received.max ?? NaN,
    stages: {
      dispatched: summarize(since((s) => s.dispatched)),
      batchStarted: summarize(since((s) => s.batchStarted)),
      attemptStarted: summarize(since((s) => s.attemptStarted)),
      received,
    },
    ...usage,
  };
}
export type LatencyRun = Awaited<ReturnType<typeof latency>>;
