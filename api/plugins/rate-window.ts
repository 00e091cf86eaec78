// A key's fixed window of requests as a limiter counted it (api/rate-limits/shared-windows.ts counts them across the
// instances), and the 429 and x-ratelimit-* headers that state it.
import { ApiError } from '../errors.ts';

export interface Window {
  count: number;
  /** When the window ends (ms since epoch). */
  resetAt: number;
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
