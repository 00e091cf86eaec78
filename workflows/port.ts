// The port every durable process is written against (DESIGN §4), and the gateway the API uses to
// start and signal processes. Both engines (Temporal, embedded DBOS) implement them.
import type { Activities } from './activities.ts';
import type { processes } from './index.ts';

export interface RetryOptions {
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient?: number;
}

export type ActivityName = keyof Activities;
export type ActivityInput<N extends ActivityName> = Parameters<Activities[N]>[0];
export type ActivityOutput<N extends ActivityName> = Awaited<ReturnType<Activities[N]>>;

export interface ProcessContext {
  run<N extends ActivityName>(name: N, input: ActivityInput<N>, retry?: RetryOptions): Promise<ActivityOutput<N>>;
  sleep(ms: number): Promise<void>;
  /** Waits for a signal on `topic` (approve, revoke, extend…), or undefined after `timeoutMs`. */
  receive<T>(topic: string, timeoutMs: number): Promise<T | undefined>;
  /** Deterministic current time in ms (async because the embedded engine checkpoints it). */
  now(): Promise<number>;
}

/** Infrastructure failures (database down, worker crash) are retried; business outcomes are return values. */
export const INFRASTRUCTURE_RETRY: RetryOptions = { maximumAttempts: 10, initialIntervalMs: 1000, backoffCoefficient: 2 };

export interface ProcessDescription {
  processId: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';
}

export interface ProcessGateway {
  /** Starts a process; starting an id that exists (running or finished) is a no-op. */
  start<K extends ProcessKind>(kind: K, processId: string, input: ProcessInput<K>, searchAttributes: { tenantId: string | null }): Promise<void>;
  signal(processId: string, topic: string, payload: unknown): Promise<void>;
  describe(processId: string): Promise<ProcessDescription>;
  cancel(processId: string): Promise<void>;
}

export type ProcessKind = keyof typeof processes;
export type ProcessInput<K extends ProcessKind> = Parameters<(typeof processes)[K]>[1];
