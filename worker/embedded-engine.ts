// The embedded process engine: DBOS Transact on the service's own Postgres (schema `dbos`).
// Each process is registered once as a DBOS workflow named by its kind; steps, sleeps and messages are
// checkpointed, so a restart resumes every process where it stopped.
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Activities } from '../workflows/activities.ts';
import { processes } from '../workflows/index.ts';
import type { ActivityName, ProcessContext, ProcessDescription, ProcessGateway, ProcessKind, RetryOptions } from '../workflows/port.ts';

// DBOS resumes pending workflows only for the same application version; bump it only with a migration plan.
export const APPLICATION_VERSION = 'iam-processes-1';

function dbosContext<Topics extends object>(activities: Activities): ProcessContext<Topics> {
  return {
    run: (name, input, retry?: RetryOptions) =>
      DBOS.runStep(() => (activities[name as ActivityName] as (i: unknown) => Promise<never>)(input), {
        name: String(name),
        ...(retry
          ? {
              retriesAllowed: true,
              maxAttempts: retry.maximumAttempts,
              intervalSeconds: retry.initialIntervalMs / 1000,
              backoffRate: retry.backoffCoefficient ?? 2,
            }
          : {}),
      }),
    sleep: (ms) => DBOS.sleep(ms),
    receive: async <T extends keyof Topics & string>(topic: T, timeoutMs: number) =>
      (await DBOS.recv<Topics[T]>(topic, { timeoutSeconds: timeoutMs / 1000 })) ?? undefined,
    now: () => DBOS.now(),
  };
}

/** Process logic as the engine registers it: each one's context is typed by its own topics, which DBOS carries as they come. */
type Logic = (ctx: ProcessContext<object>, input: never) => Promise<unknown>;

let registered: Record<string, (input: never) => Promise<unknown>> | undefined;

export interface EmbeddedEngine {
  gateway: ProcessGateway;
  stop(): Promise<void>;
}

/** Launches DBOS in this process. DBOS is a process-wide singleton: one engine per process at a time. */
export async function startEmbeddedEngine(options: { databaseUrl: string; activities: Activities; logLevel?: string }): Promise<EmbeddedEngine> {
  DBOS.setConfig({
    name: 'iam',
    systemDatabaseUrl: options.databaseUrl,
    systemDatabaseSchemaName: 'dbos',
    systemDatabasePoolSize: 5,
    applicationVersion: APPLICATION_VERSION,
    logLevel: options.logLevel ?? 'warn',
  });
  registered = Object.fromEntries(
    Object.entries(processes as Record<ProcessKind, Logic>).map(([kind, logic]) => [
      kind,
      DBOS.registerWorkflow((input: never): Promise<unknown> => logic(dbosContext(options.activities), input), { name: kind }),
    ]),
  );
  await DBOS.launch();

  const gateway: ProcessGateway = {
    start: async (kind: ProcessKind, processId, input) => {
      const workflow = registered?.[kind];
      if (!workflow) throw new Error(`unknown process kind ${kind}`);
      // Starting an id that exists returns the existing workflow: process ids are idempotency keys.
      await DBOS.startWorkflow(workflow, { workflowID: processId })(input as never);
    },
    signal: (_kind, processId, topic, payload) => DBOS.send(processId, payload, topic),
    describe: async (processId): Promise<ProcessDescription> => {
      const status = await DBOS.getWorkflowStatus(processId);
      const map: Record<string, ProcessDescription['status']> = {
        PENDING: 'running',
        ENQUEUED: 'running',
        SUCCESS: 'completed',
        ERROR: 'failed',
        CANCELLED: 'cancelled',
        MAX_RECOVERY_ATTEMPTS_EXCEEDED: 'failed',
      };
      return { processId, status: status ? (map[status.status] ?? 'unknown') : 'unknown' };
    },
    cancel: (processId) => DBOS.cancelWorkflow(processId),
  };
  return {
    gateway,
    stop: async () => {
      await DBOS.shutdown({ deregister: true });
      registered = undefined;
      // DBOS retires its LISTEN connection without awaiting the close; give it a moment before the
      // caller stops Postgres, so shutdown logs no spurious "connection terminated" warnings.
      await new Promise((resolve) => setTimeout(resolve, 250));
    },
  };
}
