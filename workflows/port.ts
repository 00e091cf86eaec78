// The port every durable process is written against (DESIGN §4), and the gateway the API uses to
// start and signal processes. Both engines (Temporal, embedded DBOS) implement them.
import type { MessageOf, NoTopics, ProcessInput, ProcessKind, TopicOf } from '../lib/processes/contracts.ts';
import type { Activities } from './activities.ts';

// The contracts (kinds, inputs, topics and messages) live in lib/processes/contracts.ts, where storage may import them.
export type { MessageOf, NoTopics, ProcessContracts, ProcessInput, ProcessKind, ProcessTopics, Topic, TopicOf } from '../lib/processes/contracts.ts';

/** How an activity is retried, the same on both engines (Temporal's RetryPolicy, the embedded engine's step loop). */
export interface RetryOptions {
  /** Attempts in all, the first included; unset: no cap (retried until it succeeds or fails for good). */
  maximumAttempts?: number;
  initialIntervalMs: number;
  backoffCoefficient?: number;
  /** The longest wait between two attempts. */
  maximumIntervalMs?: number;
}

/**
 * Errors that are bugs, not outages: an attempt that throws one of these is not retried (Temporal's
 * nonRetryableErrorTypes match these names; the embedded engine checks the same list). A zod or slonik
 * schema error means a row or input does not have the shape the code expects, which no retry changes.
 */
export const PROGRAMMING_ERRORS: readonly string[] = [
  'TypeError',
  'ReferenceError',
  'SyntaxError',
  'RangeError',
  'ZodError',
  'SchemaValidationError',
  // An integrity violation, translated by db/shared/database-errors.ts: the same statement fails the same way again.
  'DatabaseRefusal',
];

/** Whether an attempt that threw `error` is worth retrying. */
export const isRetryable = (error: unknown) =>
  !(error instanceof Error && (PROGRAMMING_ERRORS.includes(error.name) || PROGRAMMING_ERRORS.includes(error.constructor.name)));

/** The wait after failed attempt `attempt` (1-based), or null when `retry` allows no more. */
export function retryDelayMs(retry: RetryOptions, attempt: number): number | null {
  if (retry.maximumAttempts !== undefined && attempt >= retry.maximumAttempts) return null;
  const delay = retry.initialIntervalMs * (retry.backoffCoefficient ?? 2) ** (attempt - 1);
  return Math.min(delay, retry.maximumIntervalMs ?? Number.POSITIVE_INFINITY);
}

export type ActivityName = keyof Activities;
export type ActivityInput<N extends ActivityName> = Parameters<Activities[N]>[0];
export type ActivityOutput<N extends ActivityName> = Awaited<ReturnType<Activities[N]>>;

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
  /**
   * Versioning of process logic (README, "Versioning long-lived workflows"): true in a process that reaches this
   * point running code with the change named `id` (take the new path), false in one that started before the change
   * and already went past this point without it (keep the old path, so its recorded history still replays).
   * Temporal's `patched()`; DBOS's `DBOS.patch()` on the embedded engine.
   */
  patched(id: string): Promise<boolean>;
}

/**
 * Infrastructure failures (database down, worker crash) are retried without a cap, at least once a minute, so
 * an outage of any length delays processes without failing them; business outcomes are return values, and
 * programming errors (PROGRAMMING_ERRORS) are not retried.
 */
export const INFRASTRUCTURE_RETRY: RetryOptions = { initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 60_000 };

/** The longest one attempt of an activity may take (Temporal's startToCloseTimeout); delivery batches are sized to fit it. */
export const ACTIVITY_TIMEOUT_MS = 120_000;

/** Activities that heartbeat while they run (a batch of deliveries), and how long a silence means the worker is gone. */
export const HEARTBEATING_ACTIVITIES: readonly string[] = ['attemptBatch'];
export const HEARTBEAT_TIMEOUT_MS = 30_000;

export interface ProcessDescription {
  processId: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled' | 'unknown';
}

/**
 * The engine side of starting and signalling. Only the dispatcher calls `start` and `signal`, carrying out the
 * process outbox (db/processes/outbox.ts), which is how the rest of the code starts and signals processes.
 */
export interface ProcessGateway {
  /**
   * Starts a process; starting an id that is running or completed is a no-op, and one whose process failed
   * (or timed out) starts it again with this input (Temporal's ALLOW_DUPLICATE_FAILED_ONLY). A kind that ends when
   * idle (RESTARTED_WHEN_COMPLETED in index.ts) starts a new run over a completed one.
   */
  start<K extends ProcessKind>(kind: K, processId: string, input: ProcessInput<K>, searchAttributes: { tenantId: string | null }): Promise<void>;
  /** Sends a message on one of the topics of the process's kind. */
  signal<K extends ProcessKind, T extends TopicOf<K>>(kind: K, processId: string, topic: T, payload: MessageOf<K, T>): Promise<void>;
  describe(processId: string): Promise<ProcessDescription>;
  cancel(processId: string): Promise<void>;
}
