// Events per second and environment, per instance: a token bucket refilled at `rate` per second that holds at most a
// second's worth. A batch is admitted while the bucket is not empty and may take it below zero (a batch larger than
// the rate still passes once the bucket is full); the debt is what Retry-After waits for.
export interface EventRateLimiter {
  /** Events admitted per second and environment. */
  readonly rate: number;
  /** 0 when admitted (the events are counted), else the seconds to wait. */
  take(environmentId: string, count: number): number;
}

export function createEventRateLimiter(rate: number, now: () => number = Date.now): EventRateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    rate,
    take: (environmentId, count) => {
      const t = now();
      const bucket = buckets.get(environmentId) ?? { tokens: rate, at: t };
      bucket.tokens = Math.min(rate, bucket.tokens + ((t - bucket.at) / 1000) * rate);
      bucket.at = t;
      buckets.set(environmentId, bucket);
      if (bucket.tokens <= 0) return Math.max(1, Math.ceil(-bucket.tokens / rate));
      bucket.tokens -= count;
      return 0;
    },
  };
}
