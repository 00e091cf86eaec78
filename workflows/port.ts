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

/** A process that receives no messages. */
export type NoTopics = Record<never, never>;

/**
 * What process logic runs against. `Topics` maps each topic the process receives on to its message type
 * (`{ invitation: InvitationMessage }`), declared next to the logic; `receive` is typed by it.
 */
export interface ProcessContext<Topics extends object = NoTopics> {
  run<N extends ActivityName>(name: N, input: ActivityInput<N>, retry?: RetryOptions): Promise<ActivityOutput<N>>;
  sleep(ms: number): Promise<void>;
  /** Waits for a message on `topic` (approve, revoke, extend…), or undefined after `timeoutMs`. */
  receive<T extends keyof Topics & string>(topic: T, timeoutMs: number): Promise<Topics[T] | undefined>;
  /** Deterministic current time in ms (async because the embedded engine checkpoints it). */
  now(): Promise<number>;
}

/** Infrastructure failures (database down, worker crash) are retried; business outcomes are return values. */
export const INFRASTRUCTURE_RETRY: RetryOptions = { maximumAttempts: 10, initialIntervalMs: 1000, backoffCoefficient: 2 };

export interface ProcessDescription {
  processId: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';
}

/**
 * The engine side of starting and signalling. Only the dispatcher calls `start` and `signal`, carrying out the
 * process outbox (db/processes/outbox.ts), which is how the rest of the code starts and signals processes.
 */
export interface ProcessGateway {
  /** Starts a process; starting an id that exists (running or finished) is a no-op. */
  start<K extends ProcessKind>(kind: K, processId: string, input: ProcessInput<K>, searchAttributes: { tenantId: string | null }): Promise<void>;
  /** Sends a message on one of the topics of the process's kind. */
  signal<K extends ProcessKind, T extends TopicOf<K>>(kind: K, processId: string, topic: T, payload: MessageOf<K, T>): Promise<void>;
  describe(processId: string): Promise<ProcessDescription>;
  cancel(processId: string): Promise<void>;
}

export type ProcessKind = keyof typeof processes;
export type ProcessInput<K extends ProcessKind> = Parameters<(typeof processes)[K]>[1];
/** The topics a process of kind `K` receives on, with the message type of each: the `Topics` of the context its logic takes. */
export type ProcessTopics<K extends ProcessKind> = Parameters<(typeof processes)[K]>[0] extends ProcessContext<infer Topics> ? Topics : never;
/** The topics of kind `K` (over a union of kinds, the topics of each). */
export type TopicOf<K extends ProcessKind> = K extends ProcessKind ? keyof ProcessTopics<K> & string : never;
/** The message on topic `T` of kind `K`. */
export type MessageOf<K extends ProcessKind, T extends TopicOf<K>> = K extends ProcessKind
  ? T extends keyof ProcessTopics<K>
    ? ProcessTopics<K>[T]
    : never
  : never;
/** Every topic of every process (one Temporal signal each, named by the topic: `topicSignals` in temporal.ts). */
export type Topic = TopicOf<ProcessKind>;
