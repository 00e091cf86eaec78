// The Temporal binding (DESIGN §4): every process kind of the registry (index.ts) runs as one workflow, whose type
// is its definition's `workflowType`. The worker loads this file through `bundleWorkflowCode`; it may import only
// other `workflows/` files, the pure contracts of lib/processes/ and `@temporalio/workflow` (activities by type only;
// `@temporalio/common` for the search attribute keys). It also makes the workflows readable in Temporal UI:
// summaries and current details (from each definition's activity descriptions), search attributes.
import {
  condition,
  defineSignal,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { MessageOf, ProcessKind, Topic, TopicOf } from '../lib/processes/contracts.ts';
import type { Activities } from './activities.ts';
import type { ActivityDescription, ProcessDefinition, TemporalStart } from './definition.ts';
import { processes } from './index.ts';
import type { ActivityInput, ActivityName, ActivityOutput, ProcessContext, RetryOptions } from './port.ts';
import { ACTIVITY_TIMEOUT_MS, HEARTBEAT_TIMEOUT_MS, HEARTBEATING_ACTIVITIES, PROGRAMMING_ERRORS } from './port.ts';
import { DeliveryAttemptKey, NextAttemptAtKey } from './search-attributes.ts';

/** The message of a topic, whichever process kind receives on it. */
type MessageOfTopic<T extends Topic> = { [K in ProcessKind]: T extends TopicOf<K> ? MessageOf<K, T> : never }[ProcessKind];

/**
 * One signal per topic, named by the topic (`invitation`), carrying that topic's message: what the gateway sends
 * (ProcessGateway.signal) and what Temporal UI shows in the history.
 */
export const topicSignals: { [T in Topic]: ReturnType<typeof defineSignal<[MessageOfTopic<T>], T>> } = {
  invitation: defineSignal<[MessageOfTopic<'invitation'>], 'invitation'>('invitation'),
  impersonation: defineSignal<[MessageOfTopic<'impersonation'>], 'impersonation'>('impersonation'),
  directory: defineSignal<[MessageOfTopic<'directory'>], 'directory'>('directory'),
  'elevate-request': defineSignal<[MessageOfTopic<'elevate-request'>], 'elevate-request'>('elevate-request'),
  'elevate-grant': defineSignal<[MessageOfTopic<'elevate-grant'>], 'elevate-grant'>('elevate-grant'),
  'vanity-domain': defineSignal<[MessageOfTopic<'vanity-domain'>], 'vanity-domain'>('vanity-domain'),
  'billing-sync': defineSignal<[MessageOfTopic<'billing-sync'>], 'billing-sync'>('billing-sync'),
};

/** The one generic signal of earlier versions, still handled for processes signalled before the upgrade. */
const legacyMessageSignal = defineSignal<[topic: Topic, payload: unknown]>('message');

/** Longer than any one attempt of an activity (the webhook HTTP timeout is 15 s; batches are sized to fit it). */
const ACTIVITY_TIMEOUT = ACTIVITY_TIMEOUT_MS;

/**
 * No retry given means one attempt, as on the embedded engine (Temporal's default would retry forever); no
 * maximumAttempts means no cap (Temporal's unset maximumAttempts). Programming errors fail the activity at once, as on the embedded engine.
 */
export const retryPolicy = (retry?: RetryOptions): RetryPolicy =>
  retry
    ? {
        ...(retry.maximumAttempts === undefined ? {} : { maximumAttempts: retry.maximumAttempts }),
        initialInterval: retry.initialIntervalMs,
        backoffCoefficient: retry.backoffCoefficient ?? 2,
        ...(retry.maximumIntervalMs === undefined ? {} : { maximumInterval: retry.maximumIntervalMs }),
        nonRetryableErrorTypes: [...PROGRAMMING_ERRORS],
      }
    : { maximumAttempts: 1 };

const iso = (ms: number) => new Date(ms).toISOString();

/** The description of an activity, from the definition of the kind that runs it. */
const descriptions = new Map<string, ActivityDescription<ActivityName>>(
  Object.values(processes).flatMap((definition) => Object.entries(definition.activities) as [string, ActivityDescription<ActivityName>][]),
);

/**
 * Keeps a delivery's search attributes current: the attempt it is at, and when the next one is due (none once settled).
 * An upsert is a command in the history: deliveries started before it existed replay without it (`patched`).
 */
function trackDelivery(attempt: number, nextAt: number | null) {
  if (!patched('delivery-search-attributes')) return;
  upsertSearchAttributes([
    { key: DeliveryAttemptKey, value: attempt },
    { key: NextAttemptAtKey, value: nextAt === null ? null : new Date(nextAt) },
  ]);
}

/**
 * `attempts`: the number of attempts of a delivery (its schedule's length), shown as "attempt 3/8".
 * `status`: the current details to start from.
 */
function temporalContext<Topics extends object>(options: TemporalStart = {}): ProcessContext<Topics> {
  const { attempts } = options;
  let { status, nextAttempt } = options;
  const details = (next?: string) => setCurrentDetails([status, next].filter(Boolean).join(', '));
  const queues = new Map<string, unknown[]>();
  const queue = (topic: string) => {
    let q = queues.get(topic);
    if (!q) queues.set(topic, (q = []));
    return q;
  };
  // Registered before the first await, so a signal that arrives with the start is not lost.
  for (const [topic, signal] of Object.entries(topicSignals)) setHandler(signal, (payload: unknown) => void queue(topic).push(payload));
  setHandler(legacyMessageSignal, (topic, payload) => {
    queue(topic).push(payload);
  });
  return {
    run: async <N extends ActivityName>(name: N, input: ActivityInput<N>, retry?: RetryOptions) => {
      const description = descriptions.get(name) as ActivityDescription<N> | undefined;
      const activities = proxyActivities<Activities>({
        startToCloseTimeout: ACTIVITY_TIMEOUT,
        retry: retryPolicy(retry),
        summary: description?.summary(input, attempts) ?? name,
        // A long activity heartbeats: a worker that dies in the middle of it is noticed within the heartbeat timeout.
        ...(HEARTBEATING_ACTIVITIES.includes(name) ? { heartbeatTimeout: HEARTBEAT_TIMEOUT_MS } : {}),
      });
      const output = await (activities[name] as unknown as (i: unknown) => Promise<ActivityOutput<N>>)(input);
      status = description?.outcome?.(output, input, attempts) ?? `${name} done`;
      const made = description?.attempt?.(input, output);
      if (made) {
        trackDelivery(made.attempt, made.nextDelayMs === null ? null : Date.now() + made.nextDelayMs);
        nextAttempt = made.attempt + 1;
      }
      details();
      return output;
    },
    sleep: async (ms) => {
      details(`next at ${iso(Date.now() + ms)}`);
      const until = nextAttempt ? `wait for attempt ${nextAttempt}${attempts ? `/${attempts}` : ''}` : 'wait';
      await sleep(ms, { summary: status ? `${until} (${status})` : until });
    },
    receive: async <T extends keyof Topics & string>(topic: T, timeoutMs: number) => {
      const q = queue(topic);
      details(`waiting for a message on ${topic} until ${iso(Date.now() + timeoutMs)}`);
      const arrived = await condition(() => q.length > 0, timeoutMs, { summary: `wait for a message on ${topic}` });
      return arrived ? (q.shift() as Topics[T]) : undefined;
    },
    // Date.now() is the workflow task's time inside the sandbox: deterministic on replay.
    now: () => Promise.resolve(Date.now()),
    patched: (id) => Promise.resolve(patched(id)),
  };
}

/**
 * Every process kind's workflow: Temporal runs the default export for any workflow type the bundle does not export
 * by name, so the type recorded in a workflow's history (its definition's `workflowType`, never renamed) picks the
 * definition. Replays of recorded histories take the same path.
 */
export default async function processWorkflow(input: unknown): Promise<unknown> {
  const { workflowType } = workflowInfo();
  const definition = byWorkflowType.get(workflowType);
  if (!definition) throw new TypeError(`no process kind has workflow type ${workflowType}`);
  const start = definition.temporalStart?.(input as never) ?? {};
  if (start.attempted) trackDelivery(start.attempted.attempt, Date.now() + start.attempted.nextDelayMs);
  return definition.logic(temporalContext(start), input as never);
}

const byWorkflowType = new Map<string, ProcessDefinition<ProcessKind>>(
  Object.values(processes).map((definition) => [definition.workflowType, definition as unknown as ProcessDefinition<ProcessKind>]),
);

/** The Temporal workflow type of each process kind (what the gateway starts). */
export const workflowTypes = Object.fromEntries(Object.entries(processes).map(([kind, definition]) => [kind, definition.workflowType])) as Record<
  ProcessKind,
  string
>;
