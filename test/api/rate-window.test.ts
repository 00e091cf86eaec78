// How a 429 states its window (the counting itself: shared-windows.test.ts).
import { describe, expect, it } from 'vitest';
import { describeWindow, rateLimited } from '../../api/plugins/rate-window.ts';

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

  it('answers 429 with the window, the wait in whole seconds and Retry-After', () => {
    const error = rateLimited(600, 60_000, { count: 601, resetAt: Date.now() + 11_200 });
    expect(error.statusCode).toBe(429);
    expect(error.message).toBe('Rate limit of 600 requests per 1 minute exceeded; retry in 12 s.');
    expect(error.headers).toEqual({ 'retry-after': '12', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' });
  });
});
