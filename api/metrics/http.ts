// Request rate, errors and duration per route template (never a raw path: ids would make a series each).
// The labelled children are cached per route and status, so a request costs a map look-up and two increments.
import { Counter, Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  /** `route`: the route's template (`/v1/tenants/:tenantId`), or `unmatched` for a path no route serves. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const requests = new Counter({
    name: 'iam_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'iam_http_request_duration_seconds',
    help: 'Time from a request received to its answer sent, by method and route template',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(v: number): void }>();
  return {
    observe(method, route, status, seconds) {
      const key = `${method} ${route}`;
      let timer = timers.get(key);
      if (!timer) timers.set(key, (timer = duration.labels(method, route)));
      timer.observe(seconds);
      const counted = `${key} ${status}`;
      let counter = counters.get(counted);
      if (!counter) counters.set(counted, (counter = requests.labels(method, route, String(status))));
      counter.inc();
    },
  };
}
