// The ProcessGateway on a Temporal server (@temporalio/client): what the API and the dispatcher use to start,
// signal, inspect and cancel processes when PROCESS_ENGINE=temporal. Workers run them (worker/index.ts).
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../lib/temporal-connection.ts';
import type { ProcessDescription, ProcessGateway, ProcessKind } from '../workflows/port.ts';
import { TenantIdKey } from '../workflows/search-attributes.ts';
import { messageSignal, workflowTypes } from '../workflows/temporal.ts';

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

export async function createTemporalGateway(
  options: { address: string; namespace: string; taskQueue?: string } & TemporalConnectionOptions,
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
      try {
        await client.workflow.start(workflowTypes[kind], {
          workflowId: processId,
          taskQueue: options.taskQueue ?? TASK_QUEUE,
          args: [input],
          // Process ids are idempotency keys: a running one is reused, a completed one is not started again,
          // a failed one is (the sweeper's restart; worker/sweeper.ts).
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
          typedSearchAttributes: tenantId === null ? [] : [{ key: TenantIdKey, value: tenantId }],
          staticSummary: `${kind} ${processId.slice(kind.length + 1)}`,
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },
    // A message to a finished process is dropped; one to an id that never existed throws.
    signal: async (_kind, processId, topic, payload) => {
      try {
        await handle(processId).signal(messageSignal, topic, payload);
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
