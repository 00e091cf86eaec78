// Fixed-window request counters kept in memory, one window per key, and the 429 that states the window. Expired
// windows are swept once per window length, so the map holds only the keys seen in the current window.
import { ApiError } from '../errors.ts';

export interface Window {
  count: number;
  /** When the window ends (ms since epoch). */
  resetAt: number;
}

export interface WindowCounter {
  /** Counts one request of `key` and returns its window. */
  hit(key: string): Window;
  /** The current window of `key`, without counting. */
  peek(key: string): Window | undefined;
}

/**
 * At most `maxKeys` windows are kept: beyond (addresses of a distributed flood), a new key's request is admitted
 * uncounted rather than let memory grow without bound.
 */
export function createWindowCounter(windowMs: number, options: { now?: () => number; maxKeys?: number } = {}): WindowCounter {
  const { now = Date.now, maxKeys = 100_000 } = options;
  const windows = new Map<string, Window>();
  let sweepAt = 0;
  return {
    hit: (key) => {
      const t = now();
      if (t >= sweepAt) {
        for (const [k, w] of windows) if (w.resetAt <= t) windows.delete(k);
        sweepAt = t + windowMs;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= t) {
        window = { count: 0, resetAt: t + windowMs };
        if (windows.size < maxKeys || windows.has(key)) windows.set(key, window);
      }
      window.count++;
      return window;
    },
    peek: (key) => {
      const window = windows.get(key);
      return window && window.resetAt > now() ? window : undefined;
    },
  };
}

const UNITS = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
] as const;

/** A window length as people say it: `1 minute`, `90 seconds`, `2 hours`, `1500 ms`. */
export function describeWindow(ms: number): string {
  for (const [unit, name] of UNITS) {
    if (ms % unit === 0) return `${ms / unit} ${name}${ms === unit ? '' : 's'}`;
  }
  return `${ms} ms`;
}

/** Whole seconds until `resetAt`, at least 1: the Retry-After of a refused request. */
export const retrySeconds = (resetAt: number, now = Date.now()) => Math.max(1, Math.ceil((resetAt - now) / 1000));

/** The x-ratelimit-* headers of a window. */
export const rateLimitHeaders = (max: number, window: Window, now = Date.now()) => ({
  'x-ratelimit-limit': String(max),
  'x-ratelimit-remaining': String(Math.max(0, max - window.count)),
  'x-ratelimit-reset': String(retrySeconds(window.resetAt, now)),
});

/** The 429 of a request over `max` per `windowMs`: the message and Retry-After say the window and the wait. */
export function rateLimited(max: number, windowMs: number, window: Window, message?: string): ApiError {
  const now = Date.now();
  const retry = retrySeconds(window.resetAt, now);
  return new ApiError(
    429,
    'rate_limit.exceeded',
    message
      ? `${message}: at most ${max} per ${describeWindow(windowMs)}; retry in ${retry} s.`
      : `Rate limit of ${max} requests per ${describeWindow(windowMs)} exceeded; retry in ${retry} s.`,
    { headers: { ...rateLimitHeaders(max, window, now), 'retry-after': String(retry) } },
  );
}
