// The Temporal binding (DESIGN §4): each process in `processes` becomes one workflow function, named by
// `workflowTypes`. The worker loads this file through `bundleWorkflowCode`; it may import only other
// `workflows/` files and `@temporalio/workflow` (activities by type only).
import { condition, defineSignal, proxyActivities, setHandler, sleep, type RetryPolicy } from '@temporalio/workflow';
import type { Activities } from './activities.ts';
import { processes } from './index.ts';
import {
  ACTIVITY_TIMEOUT_MS,
  HEARTBEAT_TIMEOUT_MS,
  HEARTBEATING_ACTIVITIES,
  PROGRAMMING_ERRORS,
  type ActivityName,
  type ProcessContext,
  type ProcessInput,
  type ProcessKind,
  type RetryOptions,
  type Topic,
} from './port.ts';

/** Every message to a process (ProcessGateway.signal) is this one signal, carrying its topic (one signal per topic, one day). */
export const messageSignal = defineSignal<[topic: Topic, payload: unknown]>('message');

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

function temporalContext<Topics extends object>(): ProcessContext<Topics> {
  const queues = new Map<string, unknown[]>();
  const queue = (topic: string) => {
    let q = queues.get(topic);
    if (!q) queues.set(topic, (q = []));
    return q;
  };
  // Registered before the first await, so a signal that arrives with the start is not lost.
  setHandler(messageSignal, (topic, payload) => {
    queue(topic).push(payload);
  });
  return {
    run: (name, input, retry) => {
      const activities = proxyActivities<Activities>({
        startToCloseTimeout: ACTIVITY_TIMEOUT,
        retry: retryPolicy(retry),
        // A long activity heartbeats: a worker that dies in the middle of it is noticed within the heartbeat timeout.
        ...(HEARTBEATING_ACTIVITIES.includes(name) ? { heartbeatTimeout: HEARTBEAT_TIMEOUT_MS } : {}),
      });
      return (activities[name as ActivityName] as unknown as (i: unknown) => Promise<never>)(input);
    },
    sleep: (ms) => sleep(ms),
    receive: async <T extends keyof Topics & string>(topic: T, timeoutMs: number) => {
      const q = queue(topic);
      const arrived = await condition(() => q.length > 0, timeoutMs);
      return arrived ? (q.shift() as Topics[T]) : undefined;
    },
    // Date.now() is the workflow task's time inside the sandbox: deterministic on replay.
    now: () => Promise.resolve(Date.now()),
  };
}

// One exported function per process kind: the export's name is the Temporal workflow type.
export async function webhookDeliveryWorkflow(input: ProcessInput<'webhook-delivery'>) {
  return processes['webhook-delivery'](temporalContext(), input);
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

/** The Temporal workflow type of each process kind (what the gateway starts). */
export const workflowTypes: Record<ProcessKind, string> = {
  'webhook-delivery': webhookDeliveryWorkflow.name,
  'delivery-batch': deliveryBatchWorkflow.name,
  'domain-verification': domainVerificationWorkflow.name,
  'invitation-expiry': invitationExpiryWorkflow.name,
};
