// The fixed-window counters behind the per-credential rate limits, and how a 429 states its window.
import { describe, expect, it } from 'vitest';
import { createWindowCounter, describeWindow, rateLimited } from '../../api/plugins/rate-window.ts';

describe('rate windows', () => {
  it('names a window as configured, not as the time left in it', () => {
    expect([60_000, 120_000, 90_000, 1000, 3_600_000, 86_400_000, 1500].map(describeWindow)).toEqual([
      '1 minute',
      '2 minutes',
      '90 seconds',
      '1 second',
      '1 hour',
      '1 day',
      '1500 ms',
    ]);
  });

  it('counts per key within a window, starts over after it, and sweeps windows that ended', () => {
    let t = 0;
    const counter = createWindowCounter(60_000, { now: () => t });
    expect([1, 2, 3].map(() => counter.hit('a').count)).toEqual([1, 2, 3]);
    expect(counter.hit('b')).toEqual({ count: 1, resetAt: 60_000 });
    t = 59_999;
    expect(counter.peek('a')).toEqual({ count: 3, resetAt: 60_000 });
    t = 60_000;
    expect(counter.peek('a')).toBeUndefined();
    expect(counter.hit('a')).toEqual({ count: 1, resetAt: 120_000 });
  });

  it('keeps at most maxKeys windows: a new key beyond them is admitted uncounted', () => {
    const counter = createWindowCounter(60_000, { now: () => 0, maxKeys: 2 });
    counter.hit('a');
    counter.hit('b');
    expect([counter.hit('c').count, counter.hit('c').count]).toEqual([1, 1]);
    expect(counter.peek('c')).toBeUndefined();
    expect(counter.hit('a').count).toBe(2);
  });

  it('answers 429 with the window, the wait in whole seconds and Retry-After', () => {
    const error = rateLimited(600, 60_000, { count: 601, resetAt: Date.now() + 11_200 });
    expect(error.statusCode).toBe(429);
    expect(error.message).toBe('Rate limit of 600 requests per 1 minute exceeded; retry in 12 s.');
    expect(error.headers).toEqual({ 'retry-after': '12', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' });
  });
});
