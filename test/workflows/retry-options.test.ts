// One RetryOptions, the same on both engines: infrastructure failures are retried without a cap, at most a
// minute apart (an outage of any length delays a process, never fails it), programming errors not at all.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithRetries } from '../../worker/embedded-engine.ts';
import { INFRASTRUCTURE_RETRY, isRetryable, retryDelayMs } from '../../workflows/port.ts';
import { retryPolicy } from '../../workflows/temporal.ts';

const PROGRAMMING = ['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError', 'ZodError', 'SchemaValidationError', 'DatabaseRefusal'];

describe('activity retries', () => {
  it('are uncapped, doubling from 1 s to at most 1 min, on both engines', () => {
    expect(retryPolicy(INFRASTRUCTURE_RETRY)).toEqual({
      initialInterval: 1000,
      backoffCoefficient: 2,
      maximumInterval: 60_000,
      nonRetryableErrorTypes: PROGRAMMING,
    });
    expect([1, 2, 3, 6, 7, 10, 1000].map((attempt) => retryDelayMs(INFRASTRUCTURE_RETRY, attempt))).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000]);
    // No retry options: one attempt.
    expect(retryPolicy()).toEqual({ maximumAttempts: 1 });
    expect(retryDelayMs({ initialIntervalMs: 1, maximumAttempts: 2 }, 2)).toBeNull();
  });

  it('leave programming errors alone: a TypeError, ReferenceError or schema error is not retried', () => {
    const zodError = (() => {
      try {
        z.string().parse(1);
      } catch (error) {
        return error;
      }
    })();
    for (const error of [new TypeError('x is not a function'), new ReferenceError('y'), zodError]) expect(isRetryable(error)).toBe(false);
    for (const error of [new Error('Connection terminated unexpectedly'), Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })]) {
      expect(isRetryable(error)).toBe(true);
    }
  });

  it('on the embedded engine: an outage longer than ten attempts is outlived; a programming error fails at once', async () => {
    const fast = { ...INFRASTRUCTURE_RETRY, initialIntervalMs: 1, maximumIntervalMs: 4 };
    let calls = 0;
    const flaky = () => (++calls <= 15 ? Promise.reject(new Error('Connection terminated unexpectedly')) : Promise.resolve('done'));
    expect(await runWithRetries(flaky, fast)).toBe('done');
    expect(calls).toBe(16);

    calls = 0;
    const buggy = () => {
      calls++;
      return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'id')"));
    };
    await expect(runWithRetries(buggy, fast)).rejects.toThrow(TypeError);
    expect(calls).toBe(1);

    calls = 0;
    await expect(runWithRetries(flaky, undefined)).rejects.toThrow('Connection terminated unexpectedly');
    expect(calls).toBe(1);
  });
});
