// The metrics of the process side (dispatcher, engines, activities): process starts, completions and failures per
// kind, and delivery attempts by outcome. They live in whichever registry runs that code: the API's app registry in
// the embedded shape, the worker's own (WORKER_METRICS_PORT) in the Temporal shape. Created at most once per
// registry (a second call returns the same counters), labelled children cached per label value.
import { Counter, type Registry } from 'prom-client';

export type ProcessOutcome = 'completed' | 'failed';
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

export interface ProcessMetrics {
  /** A start the dispatcher carried out (idempotent by process id: a start of a running process counts too). */
  started(kind: string): void;
  ended(kind: string, outcome: ProcessOutcome): void;
  /** One delivery attempt's outcome: succeeded, failed with a retry to come, or failed for good. */
  delivered(outcome: DeliveryOutcome): void;
}

export const NO_PROCESS_METRICS: ProcessMetrics = { started: () => {}, ended: () => {}, delivered: () => {} };

const made = new WeakMap<Registry, ProcessMetrics>();

function counter(registry: Registry, name: string, help: string, labelNames: string[]) {
  const counter = new Counter({ name, help, labelNames, registers: [registry] });
  const children = new Map<string, { inc(): void }>();
  return (...values: string[]) => {
    const key = values.join('\0');
    let child = children.get(key);
    if (!child) children.set(key, (child = counter.labels(...values)));
    child.inc();
  };
}

export function createProcessMetrics(registry: Registry): ProcessMetrics {
  const existing = made.get(registry);
  if (existing) return existing;
  const starts = counter(registry, 'iam_process_starts_total', 'Process starts carried out by the dispatcher, per process kind', ['kind']);
  const completions = counter(registry, 'iam_process_completions_total', 'Processes that ran to completion, per process kind', ['kind']);
  const failures = counter(registry, 'iam_process_failures_total', 'Processes that ended in failure, per process kind', ['kind']);
  const deliveries = counter(registry, 'iam_delivery_attempts_total', 'Webhook, channel and forwarding delivery attempts, by outcome', ['outcome']);
  const metrics: ProcessMetrics = {
    started: (kind) => starts(kind),
    ended: (kind, outcome) => (outcome === 'completed' ? completions(kind) : failures(kind)),
    delivered: (outcome) => deliveries(outcome),
  };
  made.set(registry, metrics);
  return metrics;
}
