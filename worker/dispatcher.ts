// The event dispatcher: turns committed events into deliveries and starts a delivery process for each batch,
// and carries out the process starts and signals of the outbox (the only caller of ProcessGateway start and signal).
// Woken by NOTIFY at commit, and polling as a safety net; every step is idempotent, so a crash between
// any two of them loses nothing (the next round redoes what was not recorded).
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { listen, type Listener } from '../db/shared/notifications.ts';
import { createDispatchQueries } from '../db/processes/dispatch.ts';
import type { ProcessGateway } from '../workflows/port.ts';
import { createProcessOutboxQueries } from '../db/processes/outbox.ts';

const BATCH_SIZE = 1000;

// Bound to the module's (root) async context: a process started while the outbox transaction is open
// must not run its activities inside that transaction's context (slonik refuses queries from it).
const outsideTransaction = AsyncResource.bind(<T>(fn: () => Promise<T>): Promise<T> => fn());

export interface Dispatcher {
  /** One full round; resolves when nothing is left to dispatch or start. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDispatcher(deps: {
  pool: DatabasePool;
  databaseUrl: string;
  gateway: ProcessGateway;
  scheduleMs: number[];
  pollMs?: number;
  onError: (error: unknown) => void;
}): Promise<Dispatcher> {
  const queries = createDispatchQueries(deps.pool);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  // Starts and signals recorded by business transactions, in order; an entry is deleted only once done,
  // in the transaction that holds its row lock, so a crash redoes it (starts are idempotent by process id).
  const drainOutbox = () =>
    deps.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      const entries = await outbox.claim(100);
      let done = 0;
      for (const e of entries) {
        try {
          if (e.action === 'start') await outsideTransaction(() => deps.gateway.start(e.kind, e.processId, e.input, { tenantId: e.tenantId }));
          else await outsideTransaction(() => deps.gateway.signal(e.kind, e.processId, e.topic, e.payload));
        } catch (error) {
          deps.onError(error); // left in the outbox: retried next round, without holding up the others
          continue;
        }
        await outbox.remove(e.id);
        done++;
      }
      return done;
    });

  const round = async () => {
    for (;;) {
      const { dispatched } = await deps.pool.transaction((trx) => createDispatchQueries(trx).dispatchBatch(5000));
      // New deliveries are first attempted in batches: one process per batch, not per delivery, started
      // through the outbox like every process (drained just below).
      // One tenant per batch (formBatch): a round forms batches until no delivery is left unbatched.
      while ((await queries.formBatch(randomUUID(), BATCH_SIZE)).rowCount > 0);
      const batches = await queries.findUnstartedBatches();
      if (batches.length > 0) {
        await deps.pool.transaction(async (trx) => {
          for (const { batchId, tenantId } of batches) {
            await createProcessOutboxQueries(trx).enqueueStart({
              kind: 'delivery-batch',
              entityId: batchId,
              tenantId,
              input: { batchId, scheduleMs: deps.scheduleMs },
            });
            await createDispatchQueries(trx).markBatchStarted(batchId);
          }
        });
      }
      const drained = await drainOutbox();
      if (dispatched === 0 && batches.length === 0 && drained === 0) return;
    }
  };

  // Coalesces wake-ups: at most one round runs, and a wake-up during it schedules exactly one more.
  const wake = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = round()
      .catch(deps.onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void wake();
        }
      });
    return running;
  };

  const listener: Listener = await listen(
    deps.databaseUrl,
    'iam_events',
    () => void wake(),
    () => void wake(),
  );
  const poll = () => {
    timer = setTimeout(() => {
      void wake().finally(() => !stopped && poll());
    }, deps.pollMs ?? 1000);
  };
  poll();
  void wake();

  return {
    runOnce: async () => {
      await wake();
      if (running) await running;
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await listener.close();
      await running;
    },
  };
}
