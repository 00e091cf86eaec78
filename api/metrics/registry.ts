// The service's Prometheus metrics (prom-client), one registry per app so that several apps in one process (the
// tests) never share counters. Request metrics are recorded by ./http.ts; pool and outbox figures are read at scrape
// time; Node's own (event-loop lag, heap, GC) come from prom-client's default collectors.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { DatabasePool } from 'slonik';
import { createBacklogQueries } from '../../db/shared/backlog.ts';
import { createProcessMetrics, type ProcessMetrics } from '../../lib/metrics/processes.ts';
import { createDecisionMetrics, type DecisionMetrics } from './decisions.ts';
import type { Readiness } from '../health/readiness.ts';
import { createHttpMetrics, type HttpMetrics } from './http.ts';
import { createSignInMetrics, type SignInMetrics } from './sign-in.ts';

export interface Metrics {
  registry: Registry;
  http: HttpMetrics;
  decisions: DecisionMetrics;
  signIn: SignInMetrics;
  /** Process starts, ends and delivery outcomes of the processes this instance runs (the embedded shape). */
  processes: ProcessMetrics;
  /** Reports `iam_ready` (1 while /v1/health/ready would answer 200) at each scrape. */
  watchReadiness(readiness: Readiness): void;
  /** The text exposition of every metric. */
  render(): Promise<string>;
}

export function createMetrics(deps: { pool: DatabasePool }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'iam_', eventLoopMonitoringPrecision: 20 });

  new Gauge({
    name: 'iam_db_pool_connections',
    help: 'Database pool connections by state: in use (acquired), idle, being opened (pending)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = deps.pool.state();
      this.set({ state: 'acquired' }, s.acquiredConnections);
      this.set({ state: 'idle' }, s.idleConnections);
      this.set({ state: 'pending' }, s.pendingConnections);
    },
  });
  new Gauge({
    name: 'iam_db_pool_waiting_clients',
    help: 'Queries waiting for a database pool connection',
    registers: [registry],
    collect() {
      this.set(deps.pool.state().waitingClients);
    },
  });

  const outbox = createBacklogQueries(deps.pool);
  const entries = new Gauge({
    name: 'iam_outbox_entries',
    help: 'Process starts and signals waiting in the process outbox, per process kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const oldest = new Gauge({
    name: 'iam_outbox_oldest_age_seconds',
    help: 'Age of the oldest waiting process outbox entry, per process kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const dead = new Gauge({
    name: 'iam_outbox_dead_entries',
    help: 'Process outbox entries given up after their retries, per process kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'iam_dispatcher_lag_seconds',
    help: 'Age of the oldest committed event not yet turned into deliveries by the event dispatcher (0 when caught up)',
    registers: [registry],
  });
  /** Read once per scrape, for the outbox gauges and the dispatcher lag. */
  const readOutbox = async () => {
    const [rows, behind] = await Promise.all([outbox.outbox(), outbox.dispatchLag()]);
    lag.set(behind);
    for (const gauge of [entries, oldest, dead]) gauge.reset();
    for (const row of rows) {
      entries.set({ kind: row.kind }, row.entries);
      oldest.set({ kind: row.kind }, row.oldestAgeSeconds);
      dead.set({ kind: row.kind }, row.dead);
    }
  };

  const http = createHttpMetrics(registry);
  return {
    registry,
    http,
    decisions: createDecisionMetrics(registry),
    signIn: createSignInMetrics(registry),
    processes: createProcessMetrics(registry),
    watchReadiness: (readiness) => {
      new Gauge({
        name: 'iam_ready',
        help: 'Whether this instance is ready (1) or not (0: a check failing, or draining after SIGTERM), as GET /v1/health/ready answers',
        registers: [registry],
        async collect() {
          this.set((await readiness.report()).ok ? 1 : 0);
        },
      });
    },
    render: async () => {
      await readOutbox();
      return registry.metrics();
    },
  };
}
