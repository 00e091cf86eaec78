// The Temporal worker's own registry (WORKER_METRICS_PORT): the process metrics of the processes it runs and Node's
// default metrics, with the same `iam_` prefix as the API's, so one set of rules and dashboards covers both shapes.
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createProcessMetrics, type ProcessMetrics } from './processes.ts';

export function createWorkerRegistry(): { registry: Registry; processes: ProcessMetrics; render(): Promise<string> } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'iam_', eventLoopMonitoringPrecision: 20 });
  return { registry, processes: createProcessMetrics(registry), render: () => registry.metrics() };
}
