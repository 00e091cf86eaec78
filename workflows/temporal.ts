// The Temporal binding (DESIGN §4): each process in `processes` becomes one workflow function, named by
// `workflowTypes`. The worker loads this file through `bundleWorkflowCode`; it may import only other
// `workflows/` files and `@temporalio/workflow` (activities by type only; `@temporalio/common` for the search
// attribute keys). It also makes the workflows readable in Temporal UI: summaries, current details, search attributes.
import {
  condition,
  defineSignal,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from './activities.ts';
import { processes } from './index.ts';
import type {
  ActivityInput,
  ActivityName,
  ActivityOutput,
  MessageOf,
  ProcessContext,
  ProcessInput,
  ProcessKind,
  RetryOptions,
  Topic,
  TopicOf,
} from './port.ts';
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

/** What a step is for, as the activity's summary in Temporal UI. */
function activitySummary<N extends ActivityName>(name: N, input: ActivityInput<N>, attempts: number | undefined): string {
  const i = input as Record<string, unknown>;
  switch (name) {
    case 'attemptDelivery':
      return `attempt ${String(i.attempt)}${attempts ? `/${attempts}` : ''} of delivery ${String(i.deliveryId)}`;
    case 'attemptBatch':
      return `first attempt of every delivery of batch ${String(i.batchId)}`;
    case 'continueDeliveries':
      return `start a retrying process for ${(i.retries as unknown[]).length} failed deliveries`;
    case 'checkDomain':
      return `check the TXT record of domain ${String(i.domainId)}`;
    case 'failDomainVerification':
      return `give up verifying domain ${String(i.domainId)}`;
    case 'expireImpersonationGrant':
      return `expire impersonation grant ${String(i.grantId)} if it is due`;
    case 'syncDirectory':
      return `deprovision users and apply due lifecycle changes in environment ${String(i.environmentId)}`;
    case 'retireTrustStoreKey':
      return `retire trust-store key ${String(i.keyId)} if it is due`;
    case 'nudgeElevateRequest':
      return `${i.kind === 'escalated' ? 'escalate' : 'remind approvers of'} access request ${String(i.requestId)} if still pending`;
    case 'expireElevateRequest':
      return `expire access request ${String(i.requestId)} if it is due`;
    case 'expireElevateGrant':
      return `expire grant ${String(i.grantId)} if its end has come`;
    default:
      return `expire invitation ${String(i.invitationId)} if it is due`;
  }
}

/** What a step found, for the workflow's current details ("attempt 3/8 got 503"). */
function outcomeOf<N extends ActivityName>(name: N, input: ActivityInput<N>, output: ActivityOutput<N>, attempts: number | undefined): string {
  const o = output as Record<string, unknown>;
  switch (name) {
    case 'attemptDelivery': {
      const got = typeof o.statusCode === 'number' ? `got ${o.statusCode}` : typeof o.error === 'string' ? `failed (${o.error})` : 'failed';
      const attempt = `attempt ${(input as ActivityInput<'attemptDelivery'>).attempt}${attempts ? `/${attempts}` : ''} ${got}`;
      return o.done ? `${attempt}: ${String(o.status)}` : attempt;
    }
    case 'attemptBatch':
      return `first attempts made, ${(output as unknown[]).length} to retry`;
    case 'checkDomain':
      return o.verified ? 'verified' : o.done ? 'domain deleted' : 'TXT record not found yet';
    case 'expireInvitation':
    case 'expireImpersonationGrant':
      return o.outcome === 'pending' ? `not due yet (expires at ${iso(o.expiresAt as number)})` : String(o.outcome);
    case 'syncDirectory':
      return `${String(o.deprovisioned)} deprovisioned, ${String(o.applied)} lifecycle changes applied${o.nextDueAt ? `, next due at ${iso(o.nextDueAt as number)}` : ''}`;
    case 'retireTrustStoreKey':
      return o.outcome === 'pending' ? `not due yet (retires at ${iso(o.retiresAt as number)})` : String(o.outcome);
    case 'expireElevateRequest':
      return o.outcome === 'pending' ? `not due yet (expires at ${iso(o.expiresAt as number)})` : String(o.outcome);
    case 'expireElevateGrant':
      return o.outcome === 'waiting' ? `not due yet (ends at ${iso(o.until as number)})` : String(o.outcome);
    default:
      return `${name} done`;
  }
}

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
function temporalContext<Topics extends object>(options: { attempts?: number; status?: string; nextAttempt?: number } = {}): ProcessContext<Topics> {
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
      const activities = proxyActivities<Activities>({
        startToCloseTimeout: ACTIVITY_TIMEOUT,
        retry: retryPolicy(retry),
        summary: activitySummary(name, input, attempts),
        // A long activity heartbeats: a worker that dies in the middle of it is noticed within the heartbeat timeout.
        ...(HEARTBEATING_ACTIVITIES.includes(name) ? { heartbeatTimeout: HEARTBEAT_TIMEOUT_MS } : {}),
      });
      const output = await (activities[name] as unknown as (i: unknown) => Promise<ActivityOutput<N>>)(input);
      status = outcomeOf(name, input, output, attempts);
      if (name === 'attemptDelivery') {
        const result = output as ActivityOutput<'attemptDelivery'>;
        const { attempt } = input as ActivityInput<'attemptDelivery'>;
        trackDelivery(attempt, result.done ? null : Date.now() + result.nextDelayMs);
        nextAttempt = attempt + 1;
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

// One exported function per process kind: the export's name is the Temporal workflow type.
export async function webhookDeliveryWorkflow(input: ProcessInput<'webhook-delivery'>) {
  const attempts = input.scheduleMs.length;
  const first = input.firstAttempt ?? 1;
  // Started by a batch whose first attempt failed: findable at once by its attempt and next attempt time.
  const status = first > 1 ? `attempt ${first - 1}/${attempts} failed` : undefined;
  if (first > 1) trackDelivery(first - 1, Date.now() + (input.firstDelayMs ?? input.scheduleMs[first - 1] ?? 0));
  return processes['webhook-delivery'](temporalContext({ attempts, status, nextAttempt: first }), input);
}

export async function deliveryBatchWorkflow(input: ProcessInput<'delivery-batch'>) {
  return processes['delivery-batch'](temporalContext(), input);
}

export async function domainVerificationWorkflow(input: ProcessInput<'domain-verification'>) {
  return processes['domain-verification'](temporalContext(), input);
}

export async function invitationExpiryWorkflow(input: ProcessInput<'invitation-expiry'>) {
  return processes['invitation-expiry'](temporalContext(), input);
}

export async function impersonationExpiryWorkflow(input: ProcessInput<'impersonation-expiry'>) {
  return processes['impersonation-expiry'](temporalContext(), input);
}

export async function directorySyncWorkflow(input: ProcessInput<'directory-sync'>) {
  return processes['directory-sync'](temporalContext(), input);
}

export async function trustStoreKeyRetirementWorkflow(input: ProcessInput<'trust-store-key-retirement'>) {
  return processes['trust-store-key-retirement'](temporalContext(), input);
}

export async function elevateRequestWorkflow(input: ProcessInput<'elevate-request'>) {
  return processes['elevate-request'](temporalContext(), input);
}

export async function elevateGrantWorkflow(input: ProcessInput<'elevate-grant'>) {
  return processes['elevate-grant'](temporalContext(), input);
}

/** The Temporal workflow type of each process kind (what the gateway starts). */
export const workflowTypes: Record<ProcessKind, string> = {
  'webhook-delivery': webhookDeliveryWorkflow.name,
  'delivery-batch': deliveryBatchWorkflow.name,
  'domain-verification': domainVerificationWorkflow.name,
  'invitation-expiry': invitationExpiryWorkflow.name,
  'impersonation-expiry': impersonationExpiryWorkflow.name,
  'directory-sync': directorySyncWorkflow.name,
  'trust-store-key-retirement': trustStoreKeyRetirementWorkflow.name,
  'elevate-request': elevateRequestWorkflow.name,
  'elevate-grant': elevateGrantWorkflow.name,
};
