// Waiting for a large piece of work (thousands of deliveries, rows, processes) on a machine whose speed we do not know:
// the wait goes on while the work advances and fails only once it has stalled, so a loaded CI machine is slower, not red.
import { setTimeout as wait } from 'node:timers/promises';

/**
 * Resolves once `measure()` reaches `target`; throws when it has not grown for `stallMs`, or after `maxMs` in all.
 * Returns the last value read.
 */
export async function untilReached(
  measure: () => Promise<number>,
  target: number,
  { stallMs = 30_000, maxMs = 600_000, intervalMs = 250, what = 'value' } = {},
): Promise<number> {
  const started = Date.now();
  let last = await measure();
  let lastGrowth = Date.now();
  while (last < target) {
    if (Date.now() - lastGrowth > stallMs) throw new Error(`${what} stalled at ${last} of ${target} for ${stallMs} ms`);
    if (Date.now() - started > maxMs) throw new Error(`${what} reached only ${last} of ${target} in ${maxMs} ms`);
    await wait(intervalMs);
    const now = await measure();
    if (now > last) lastGrowth = Date.now();
    last = now;
  }
  return last;
}
