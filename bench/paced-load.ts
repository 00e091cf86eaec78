// Latency at a given rate, open loop: requests leave at evenly spaced moments (rate per second) over a pool of
// keep-alive connections, whether or not earlier ones have answered, and each latency runs from the moment the request
// was handed to the pool (a request waiting for a free connection counts that wait). autocannon's `overallRate` is no
// use for this: each connection sends its whole per-second quota at once and then idles until the next second, so
// "half load" is full load for half of each second, and its coordinated-omission correction at a 1 ms expected interval
// adds synthetic samples to every answer slower than 1 ms.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';

export type PacedOptions = {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bodies sent in turn instead of `body` (a mix of requests). */
  bodies?: string[];
  connections: number;
  rate: number;
  duration: number;
};
export type PacedResult = {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  /** The generator's own state: its largest event-loop delay (ms), the most a request left after its moment (ms), the cores it used. */
  generator: { loopDelayMax: number; lateMax: number; cpu: number };
};

const round = (ms: number) => Math.round(ms * 100) / 100;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

export async function pacedLoad(options: PacedOptions): Promise<PacedResult> {
  const url = new URL(options.url);
  const pool = new Pool(url.origin, { connections: options.connections, pipelining: 1 });
  const total = Math.floor(options.rate * options.duration);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let sentCount = 0;
  // Counted, not kept: a run's hundred thousand settled promises would grow the generator's heap into major GCs.
  let outstanding = 0;
  let drained: (() => void) | undefined;
  const send = () => {
    const sent = performance.now();
    const body = options.bodies ? options.bodies[sentCount++ % options.bodies.length] : options.body;
    outstanding++;
    pool
      .request({ path: url.pathname + url.search, method: options.method, headers: options.headers, body })
      .then(async (res) => {
        await res.body.dump();
        latencies.push(performance.now() - sent);
        if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
      })
      .catch(() => void errors++)
      .finally(() => {
        if (--outstanding === 0) drained?.();
      });
  };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  let lateMax = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    let due = 0;
    const tick = () => {
      const now = performance.now();
      while (due < total && started + due * interval <= now) {
        lateMax = Math.max(lateMax, now - (started + due * interval));
        send();
        due++;
      }
      if (due < total) setTimeout(tick, Math.max(0, started + due * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  if (outstanding > 0) await new Promise<void>((resolve) => (drained = resolve));
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / seconds),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? 0),
    errors,
    non2xx,
    generator: { loopDelayMax: round(delay.max / 1e6), lateMax: round(lateMax), cpu: round((cpu.user + cpu.system) / 1e6 / seconds) },
  };
}
