// Decision latency of AuthZEN and FGA, and the hit rate of the caches behind them (the access model, FGA's
// models and check answers), without a tenant label: one series per operation or cache.
import { Counter, Histogram, type Registry } from 'prom-client';

export type DecisionApi = 'authzen' | 'fga';
export type DecisionCache = 'access_model' | 'fga_model' | 'fga_check' | 'fga_tuples';

export interface DecisionMetrics {
  /** Times a decision from `started` (performance.now()) when `answer` settles; returns `answer` as it is. */
  timed<T>(api: DecisionApi, operation: string, started: number, answer: T): T;
  cache(cache: DecisionCache, hit: boolean): void;
}

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export function createDecisionMetrics(registry: Registry): DecisionMetrics {
  const duration = new Histogram({
    name: 'iam_decision_duration_seconds',
    help: 'Time to answer an AuthZEN or FGA decision request, by API and operation',
    labelNames: ['api', 'operation'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const lookups = new Counter({
    name: 'iam_decision_cache_lookups_total',
    help: 'Look-ups of the caches decisions read (access model, FGA model, FGA check answers, FGA tuples), by result: hit or miss',
    labelNames: ['cache', 'result'],
    registers: [registry],
  });
  const timers = new Map<string, { observe(v: number): void }>();
  const counters = new Map<string, { inc(): void }>();
  const observe = (api: string, operation: string, started: number) => {
    const key = `${api} ${operation}`;
    let timer = timers.get(key);
    if (!timer) timers.set(key, (timer = duration.labels(api, operation)));
    timer.observe((performance.now() - started) / 1000);
  };
  return {
    timed(api, operation, started, answer) {
      if (answer instanceof Promise) {
        void answer.then(
          () => observe(api, operation, started),
          () => observe(api, operation, started),
        );
      } else observe(api, operation, started);
      return answer;
    },
    cache(cache, hit) {
      const key = `${cache} ${hit}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = lookups.labels(cache, hit ? 'hit' : 'miss')));
      counter.inc();
    },
  };
}
