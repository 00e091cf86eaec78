// Small helpers of the webhook benchmark: clocks, rounding, percentiles and CPU accounting.
import { machineBusySeconds, treeCpuSeconds } from '../proc.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wall-clock ms with sub-ms resolution, comparable with Postgres timestamps taken on this machine. */
export const wall = () => performance.timeOrigin + performance.now();

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Summary {
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** p50, p99 and max of a sample; nulls when it is empty. */
export function summarize(values: number[]): Summary {
  if (!values.length) return { p50: null, p99: null, max: null };
  return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)) };
}

export interface CpuUsage {
  /** CPU seconds of this Node process. */
  nodeCpuS: number;
  /** CPU seconds of the processes it started (the embedded Postgres). */
  postgresCpuS: number;
  /** Cores used meanwhile by everything else on the machine (load that makes the figures unreliable). */
  otherCpu: number;
}

/** Starts measuring CPU; the function returned reads what was used since. */
export function cpuMeter(): () => CpuUsage {
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
