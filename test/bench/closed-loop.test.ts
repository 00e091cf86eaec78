// The benches' closed loop (bench/closed-loop.ts): every user keeps iterating until the time is up, a throwing
// iteration counts as an error (the first message kept) and its user goes on.
import { describe, expect, it } from 'vitest';
import { closedLoop } from '../../bench/closed-loop.ts';

describe('closedLoop', () => {
  it('runs the users side by side until the duration ends, counting failed iterations and keeping the first error', async () => {
    let runs = 0;
    let inFlight = 0;
    let most = 0;
    const result = await closedLoop(3, 0.2, async () => {
      const n = ++runs;
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (n % 4 === 0) throw new Error(`failure ${n}`);
    });
    expect(most).toBe(3);
    expect(result.seconds).toBeGreaterThanOrEqual(0.2);
    expect(result.errors).toBe(Math.floor(runs / 4));
    expect(result.firstError).toBe('Error: failure 4');
  });
});
