// The ProcessGateway on a Temporal server (@temporalio/client): what the API and the dispatcher use to start,
// signal, inspect and cancel processes when PROCESS_ENGINE=temporal. Workers run them (worker/index.ts).
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SearchAttributePair, SignalDefinition } from '@temporalio/common';
import type { ProcessScope } from '../db/processes/scopes.ts';
import type { TemporalConnectionOptions } from '../lib/temporal-connection.ts';
import type { ProcessDescription, ProcessGateway, ProcessInput, ProcessKind } from '../workflows/port.ts';
import { ChannelIdKey, DomainIdKey, EndpointIdKey, EnvironmentIdKey, InvitationIdKey, OrganizationIdKey, TenantIdKey } from '../workflows/search-attributes.ts';
import { RESTARTED_WHEN_COMPLETED } from '../workflows/index.ts';
import { topicSignals, workflowTypes } from '../workflows/temporal.ts';

export const TASK_QUEUE = 'iam';

export interface TemporalGateway extends ProcessGateway {
  close(): Promise<void>;
}

const STATUS: Record<string, ProcessDescription['status']> = {
  RUNNING: 'running',
  PAUSED: 'running',
  CONTINUED_AS_NEW: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  TIMED_OUT: 'failed',
  TERMINATED: 'cancelled',
  CANCELLED: 'cancelled',
};

/** Finds who and what a process is about (createProcessScopeQueries(pool).scopeOf), for its search attributes. */
export type ScopeLookup = <K extends ProcessKind>(kind: K, input: ProcessInput<K>, tenantId: string | null) => Promise<ProcessScope>;

/** The search attributes a workflow starts with: the ids an operator searches by. */
function searchAttributesOf(scope: ProcessScope): SearchAttributePair[] {
  const pairs: [typeof TenantIdKey, string | null | undefined][] = [
    [TenantIdKey, scope.tenantId],
    [OrganizationIdKey, scope.organizationId],
    [EnvironmentIdKey, scope.environmentId],
    [EndpointIdKey, scope.endpointId],
    [ChannelIdKey, scope.channelId],
    [DomainIdKey, scope.domainId],
    [InvitationIdKey, scope.invitationId],
  ];
  return pairs.flatMap(([key, value]) => (value ? [{ key, value }] : []));
}

const duration = (ms: number) => (ms === 0 ? '0' : ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

type Description = { summary: string; details: string };
/** What a workflow of each kind is for: its static summary (one line) and the first paragraph of its details. */
type Describer<K extends ProcessKind> = (input: ProcessInput<K>, entityId: string, scope: ProcessScope) => Description;

// One entry per process kind (a new kind adds its line).
const DESCRIBERS: { [K in ProcessKind]: Describer<K> } = {
  'webhook-delivery': (i, entityId, scope) => ({
    summary: `Delivers event delivery ${entityId} to a ${scope.channelId ? 'notification channel' : 'webhook endpoint'}, retrying (${i.scheduleMs.length} attempts)`,
    details:
      `Retries delivery \`${entityId}\` from attempt ${i.firstAttempt ?? 1} of ${i.scheduleMs.length}, on the schedule ${i.scheduleMs.map(duration).join(', ')}; ` +
      'stops when an attempt succeeds, the endpoint answers 410 Gone or is disabled, or the last attempt fails. ' +
      'Current details show the last attempt and when the next one is due (search attributes `DeliveryAttempt`, `NextAttemptAt`).',
  }),
  'delivery-batch': (_i, entityId) => ({
    summary: `First attempt of the new deliveries of a tenant (batch ${entityId})`,
    details: `Sends the first attempt of every delivery of batch \`${entityId}\` at once; each one that fails continues in a \`webhook-delivery\` workflow of its own.`,
  }),
  'domain-verification': (i) => ({
    summary: `Verifies the DNS TXT record of tenant domain ${i.domainId}`,
    details: `Checks the TXT record of domain \`${i.domainId}\` until it holds the token or the domain is deleted; gives up after ${duration(i.giveUpAfterMs)}.`,
  }),
  'invitation-expiry': (i) => ({
    summary: `Expires organization invitation ${i.invitationId} when due`,
    details: `Expires invitation \`${i.invitationId}\` at ${new Date(i.expiresAt).toISOString()} unless it is resent (new expiry), revoked or accepted (signal \`invitation\`).`,
  }),
  'impersonation-expiry': (i) => ({
    summary: `Expires impersonation grant ${i.grantId} when due`,
    details: `Marks impersonation grant \`${i.grantId}\` expired at ${new Date(i.expiresAt).toISOString()} unless it is revoked first (signal \`impersonation\`).`,
  }),
  'directory-sync': (i) => ({
    summary: `Deprovisions users and applies lifecycle changes in environment ${i.environmentId}`,
    details:
      `Deprovisions the users of environment \`${i.environmentId}\` that were deactivated or deleted (signal \`directory\`) and applies ` +
      'future-dated lifecycle changes (HR prehire starts, terminations) when due; ends when nothing is pending, and the next change starts a new run.',
  }),
  'trust-store-key-retirement': (i) => ({
    summary: `Retires trust-store key ${i.keyId} at the end of its rotation grace period`,
    details: `Retires key \`${i.keyId}\` at ${new Date(i.retiresAt).toISOString()} (status \`retired\`, event \`mcp.trust_store.key.retired\`) unless it was revoked or deleted before.`,
  }),
  'elevate-request': (i) => ({
    summary: `Waits for the decision on access request ${i.requestId}, reminds approvers, expires it when due`,
    details:
      `Reminds the approvers of access request \`${i.requestId}\` halfway through its time to live${i.escalate ? ', escalates at three quarters' : ''}, ` +
      `and expires it at ${new Date(i.expiresAt).toISOString()} unless it is decided or cancelled first (signal \`elevate-request\`).`,
  }),
  'elevate-grant': (i) => ({
    summary: `Ends elevated-access grant ${i.grantId} when its activation window or duration is over`,
    details:
      `Waits until ${new Date(i.until).toISOString()} for grant \`${i.grantId}\` to be activated (then until its expiry), and expires it at the end; ` +
      'activation and extension move the end, revocation ends the process (signal `elevate-grant`).',
  }),
};

/** What the workflow is for, in one line (its static summary in Temporal UI), and its context in markdown. */
function describeProcess<K extends ProcessKind>(kind: K, processId: string, input: ProcessInput<K>, scope: ProcessScope): Description {
  const entityId = processId.slice(kind.length + 1);
  const context = [
    scope.organizationId && `- organization \`${scope.organizationId}\``,
    scope.tenantId && `- tenant \`${scope.tenantId}\``,
    scope.environmentId && `- environment \`${scope.environmentId}\``,
    scope.endpointId && `- webhook endpoint \`${scope.endpointId}\``,
    scope.channelId && `- notification channel \`${scope.channelId}\``,
  ].filter(Boolean);
  const { summary, details } = (DESCRIBERS[kind] as Describer<K>)(input, entityId, scope);
  return { summary, details: [details, '', ...context].join('\n') };
}

export async function createTemporalGateway(
  options: {
    address: string;
    namespace: string;
    taskQueue?: string;
    /** Without it, workflows carry only TenantId (and the ids in their input). */
    scopeOf?: ScopeLookup;
  } & TemporalConnectionOptions,
): Promise<TemporalGateway> {
  const connection = await Connection.connect({
    address: options.address,
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  const client = new Client({ connection, namespace: options.namespace });
  const handle = (processId: string) => client.workflow.getHandle(processId);

  const describe = async (processId: string): Promise<ProcessDescription> => {
    try {
      const { status } = await handle(processId).describe();
      return { processId, status: STATUS[status.name] ?? 'unknown' };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { processId, status: 'unknown' };
      throw error;
    }
  };

  return {
    start: async (kind: ProcessKind, processId, input, { tenantId }) => {
      const scope: ProcessScope = options.scopeOf
        ? await options.scopeOf(kind, input, tenantId)
        : {
            tenantId,
            organizationId: null,
            domainId: (input as Partial<ProcessInput<'domain-verification'>>).domainId,
            invitationId: (input as Partial<ProcessInput<'invitation-expiry'>>).invitationId,
          };
      const { summary, details } = describeProcess(kind, processId, input, scope);
      try {
        await client.workflow.start(workflowTypes[kind], {
          workflowId: processId,
          taskQueue: options.taskQueue ?? TASK_QUEUE,
          args: [input],
          // Process ids are idempotency keys: a running one is reused, a completed one is not started again
          // (unless its kind ends when idle: RESTARTED_WHEN_COMPLETED), a failed one is (the sweeper's restart; worker/sweeper.ts).
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: RESTARTED_WHEN_COMPLETED.includes(kind) ? 'ALLOW_DUPLICATE' : 'ALLOW_DUPLICATE_FAILED_ONLY',
          typedSearchAttributes: searchAttributesOf(scope),
          staticSummary: summary,
          staticDetails: details,
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },
    // A message to a finished process is dropped; one to an id that never existed throws.
    signal: async (_kind, processId, topic, payload) => {
      try {
        // The topic's own signal carries that topic's message (one signal per topic: workflows/temporal.ts).
        await handle(processId).signal(topicSignals[topic] as SignalDefinition<[typeof payload]>, payload);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError) || (await describe(processId)).status === 'unknown') throw error;
      }
    },
    describe,
    cancel: async (processId) => {
      try {
        await handle(processId).cancel();
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },
    close: () => connection.close(),
  };
}
