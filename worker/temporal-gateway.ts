// The ProcessGateway on a Temporal server (@temporalio/client): what the API and the dispatcher use to start,
// signal, inspect and cancel processes when PROCESS_ENGINE=temporal. Workers run them (worker/index.ts).
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SearchAttributePair, SignalDefinition } from '@temporalio/common';
import { RESTARTED_WHEN_COMPLETED, type ProcessInput, type ProcessKind, type ProcessScope } from '../lib/processes/contracts.ts';
import type { ScopeQuery } from '../lib/processes/lookups.ts';
import type { TemporalConnectionOptions } from '../lib/temporal-connection.ts';
import { definitionOf } from '../workflows/index.ts';
import type { ProcessDescription, ProcessGateway } from '../workflows/port.ts';
import { ChannelIdKey, DomainIdKey, EndpointIdKey, EnvironmentIdKey, InvitationIdKey, OrganizationIdKey, TenantIdKey } from '../workflows/search-attributes.ts';
import { topicSignals, workflowTypes } from '../workflows/temporal.ts';
import { tracingClientInterceptors } from './temporal-telemetry.ts';

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

/** Reads who and what a process is about where its definition says (createProcessScopeQueries(pool).scopeOf), for its search attributes. */
export type ScopeLookup = (query: ScopeQuery, tenantId: string | null) => Promise<ProcessScope>;

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

type Description = { summary: string; details: string };

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
  const { summary, details } = definitionOf(kind).describe(input, entityId, scope);
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
  // With tracing on, a start or signal carries the active span's context to the workflow (the dispatcher's outbox span).
  const interceptors = await tracingClientInterceptors();
  const client = new Client({ connection, namespace: options.namespace, ...(interceptors ? { interceptors } : {}) });
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
      const query = definitionOf(kind).scope(input);
      const scope: ProcessScope = options.scopeOf
        ? await options.scopeOf(query, tenantId)
        : {
            tenantId,
            organizationId: null,
            domainId: 'domainId' in query ? query.domainId : undefined,
            invitationId: 'invitationId' in query ? query.invitationId : undefined,
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
