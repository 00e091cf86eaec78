// The embedded engine's delivery throughput, measured two ways:
//   backlog: the processes stopped, N events committed, then the processes started; deliveries/s from that
//            start to the last receipt: the delivery capacity, independent of how fast events are committed.
//   live:    N events committed while the processes run; deliveries/s from the first commit to the last
//            receipt. Deliveries keep pace with commits, so this is bounded by the benchmark's commit rate.
import type { Receiver } from './receiver.ts';
import { commitEvents, milestones, settled, stagesOf, type Fixture, type Milestones } from './events.ts';
import { cpuMeter, round, wall, type CpuUsage } from './util.ts';

export const ENGINE_ROUTE = '/engine';

export interface EngineRun extends CpuUsage {
  events: number;
  delivered: number;
  duplicates: number;
  sockets: number;
  /** From the start of the measurement (processes started, or first commit) to the last receipt. */
  elapsedMs: number;
  rate: number;
  /** ms after the start of the measurement. */
  timeline: Milestones & { commitsDoneMs: number | null; processesStartedMs: number | null; lastReceiptMs: number };
  /** Committing the events (in the backlog run, while the processes were stopped). */
  commit: { ms: number; rate: number };
  ids: string[];
}

export interface EngineOptions {
  events: number;
  batch: number;
  timeoutMs: number;
}

/** Waits for the deliveries of `ids` and sums up the run that began at `t0` (wall clock). */
async function conclude(f: Fixture, receiver: Receiver, ids: string[], t0: number, o: EngineOptions, meter: () => CpuUsage) {
  const complete = await receiver.waitFor(ENGINE_ROUTE, ids, o.timeoutMs);
  const arrivals = receiver.arrivals(ENGINE_ROUTE);
  const got = ids.filter((id) => arrivals.has(id));
  const last = Math.max(...got.map((id) => arrivals.get(id)!));
  const usage = meter();
  await settled(f.pool, o.timeoutMs);
  if (!complete) console.error(`WARNING: only ${got.length}/${ids.length} deliveries arrived within ${o.timeoutMs} ms`);
  const elapsedMs = last - t0;
  return {
    delivered: got.length,
    duplicates: receiver.duplicates(ENGINE_ROUTE),
    sockets: receiver.sockets(ENGINE_ROUTE),
    elapsedMs: Math.round(elapsedMs),
    rate: round((got.length / elapsedMs) * 1000),
    milestones: milestones([...(await stagesOf(f.pool, ids)).values()], t0),
    lastReceiptMs: Math.round(elapsedMs),
    ...usage,
  };
}

/** Delivery capacity on a backlog: `stop` the processes, commit the events, `start` them and time the deliveries. */
export async function backlog(
  f: Fixture,
  receiver: Receiver,
  processes: { stop(): Promise<void>; start(): Promise<void> },
  o: EngineOptions,
): Promise<EngineRun> {
  await processes.stop();
  const c0 = performance.now();
  const ids = await commitEvents(f, o.events, o.batch);
  const commitMs = performance.now() - c0;
  receiver.reset(ENGINE_ROUTE);
  const meter = cpuMeter();
  const t0 = wall();
  await processes.start();
  const startedMs = wall() - t0;
  const { milestones: m, lastReceiptMs, ...r } = await conclude(f, receiver, ids, t0, o, meter);
  return {
    events: ids.length,
    ...r,
    timeline: { commitsDoneMs: null, processesStartedMs: Math.round(startedMs), ...m, lastReceiptMs },
    commit: { ms: Math.round(commitMs), rate: round((ids.length / commitMs) * 1000) },
    ids,
  };
}

/** Deliveries while the events are being committed, as fast as one connection commits them. */
export async function live(f: Fixture, receiver: Receiver, o: EngineOptions): Promise<EngineRun> {
  receiver.reset(ENGINE_ROUTE);
  const meter = cpuMeter();
  const t0 = wall();
  const ids = await commitEvents(f, o.events, o.batch);
  const commitMs = wall() - t0;
  const { milestones: m, lastReceiptMs, ...r } = await conclude(f, receiver, ids, t0, o, meter);
  return {
    events: ids.length,
    ...r,
    timeline: { commitsDoneMs: Math.round(commitMs), processesStartedMs: null, ...m, lastReceiptMs },
    commit: { ms: Math.round(commitMs), rate: round((ids.length / commitMs) * 1000) },
    ids,
  };
}
