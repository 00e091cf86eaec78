// The event dispatcher: turns committed events into deliveries and starts a delivery process for each batch,
// and carries out the process starts and signals of the outbox (the only caller of ProcessGateway start and signal).
// Woken by NOTIFY at commit, and polling as a safety net; every step is idempotent, so a crash between
// any two of them loses nothing (the next round redoes what was not recorded).
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { listen, type Listener } from '../db/shared/notifications.ts';
import { createDispatchQueries } from '../db/processes/dispatch.ts';
import { ACTIVITY_TIMEOUT_MS, type ProcessGateway } from '../workflows/port.ts';
import { CONCURRENCY } from '../activities/deliveries.ts';
import { createProcessOutboxQueries, type OutboxEntry, type OutboxRetry } from '../db/processes/outbox.ts';
import { disableEndpointFor } from '../db/events/webhooks/disable.ts';
import { createLimiter } from '../lib/limiter.ts';
import { inSpan } from '../lib/telemetry.ts';
import { NO_PROCESS_METRICS, type ProcessMetrics } from '../lib/metrics/processes.ts';

/**
 * Deliveries per batch: as many as one attempt of the batch activity can send within its timeout, with
 * CONCURRENCY requests in flight each taking at most `timeoutMs` (64 × floor(2 min / 15 s) = 512 by default),
 * and at most 1000; DELIVERY_BATCH_SIZE overrides it.
 */
export const deliveryBatchSize = (timeoutMs: number) => Math.max(1, Math.min(1000, CONCURRENCY * Math.floor(ACTIVITY_TIMEOUT_MS / timeoutMs)));
const OUTBOX_CLAIM = 100;
/**
 * How long a claimed outbox entry is held by its dispatcher, renewed every OUTBOX_RENEW_MS while it is carried out:
 * the entries of a dispatcher that dies (SIGKILL) are taken up by another within seconds.
 */
export const OUTBOX_LEASE_MS = 10_000;
const OUTBOX_RENEW_MS = 3_000;
/** Processes whose outbox entries are carried out at once (each process's own entries stay in order). */
const OUTBOX_CONCURRENCY = 4;
/** Events turned into deliveries per statement: bounds each statement's rows (events × subscribers). */
const EVENTS_PER_ROUND = 500;
/** Batches whose start is enqueued per transaction. */
const BATCHES_PER_ROUND = 50;
/** Per-entry backoff of the process outbox: 1 s doubling up to 5 min, dead after 20 failures (about an hour). */
export const OUTBOX_RETRY: OutboxRetry = { initialMs: 1000, maxMs: 300_000, maxAttempts: 20 };

/** WEBHOOK_MAX_PENDING_PER_ENDPOINT and WEBHOOK_MAX_PENDING_PER_TENANT (lib/config.ts). */
export interface BacklogLimits {
  pendingPerEndpoint: number;
  pendingPerTenant: number;
}
const DEFAULT_LIMITS: BacklogLimits = { pendingPerEndpoint: 1000, pendingPerTenant: 10_000 };

export interface Dispatcher {
  /** One full round; resolves when nothing is left to dispatch or start. */
  runOnce(): Promise<void>;
  /** Why it is not working (stopped, or no round for a while: its poll loop died), or null while it is. */
  trouble(): string | null;
  stop(): Promise<void>;
}

export async function startDispatcher(deps: {
  pool: DatabasePool;
  databaseUrl: string;
  gateway: ProcessGateway;
  scheduleMs: number[];
  pollMs?: number;
  onError: (error: unknown) => void;
  /** Notices (a dropped message, a dead outbox entry); console.warn by default. */
  log?: (message: string) => void;
  outboxRetry?: Partial<OutboxRetry>;
  /** Deliveries per batch process (default: 1000). */
  batchSize?: number;
  /** Backlog caps: an endpoint over one is disabled (reason `backlog`, with an event). */
  limits?: BacklogLimits;
  /** Counts the process starts carried out. */
  metrics?: ProcessMetrics;
}): Promise<Dispatcher> {
  const metrics = deps.metrics ?? NO_PROCESS_METRICS;
  const limits = deps.limits ?? DEFAULT_LIMITS;
  const batchSize = deps.batchSize ?? 1000;
  const queries = createDispatchQueries(deps.pool);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRoundAt = Date.now();

  // Starts and signals recorded by business transactions, in order per process. Entries are claimed under a short lease
  // (renewed while they are carried out) in one short statement and carried out with no transaction open, a few
  // processes at once; each is then removed, or recorded as failed with its own backoff (dead after
  // `retry.maxAttempts`, for operators to list and retry), so an entry the engine refuses holds up nothing but the
  // later entries of its own process. A crash redoes a leased entry once its lease ends (starts are idempotent by
  // process id); a stop hands back what it did not carry out. Returns whether another pass may find work.
  const retry = { ...OUTBOX_RETRY, ...deps.outboxRetry };
  const log = deps.log ?? ((message: string) => console.warn(message));
  const outbox = createProcessOutboxQueries(deps.pool);
  const limit = createLimiter(OUTBOX_CONCURRENCY);
  /** Carries out one entry; false when it failed (its later entries must wait). */
  const carryOut = async (e: OutboxEntry): Promise<boolean> => {
    try {
      // In the trace of the request that enqueued it: the engine carries the span on to the process.
      await inSpan(
        `outbox ${e.action} ${e.kind}`,
        async () => {
          if (e.action === 'start') {
            await deps.gateway.start(e.kind, e.processId, e.input, { tenantId: e.tenantId });
            metrics.started(e.kind);
          } else await deps.gateway.signal(e.kind, e.processId, e.topic, e.payload);
        },
        { traceparent: e.traceContext, attributes: { 'iam.process_id': e.processId } },
      );
    } catch (error) {
      if (e.action === 'signal' && (await finished(e.processId))) {
        // A message to a process that has finished has nobody to act on it: not worth a retry.
        log(`process outbox: dropped the ${e.topic} message to ${e.processId}, which has finished`);
      } else {
        const failed = await outbox.fail(e.id, error instanceof Error ? error.message : String(error), retry);
        if (failed?.dead) log(`process outbox: entry ${e.id} (${e.action} ${e.processId}) is dead after ${failed.attempts} attempts`);
        deps.onError(error);
        return false;
      }
    }
    await outbox.remove(e.id);
    return true;
  };
  const drainOutbox = async () => {
    const entries = await outbox.claim(OUTBOX_CLAIM, OUTBOX_LEASE_MS);
    if (entries.length === 0) return false;
    const held = new Set(entries.map((e) => e.id));
    const renew = setInterval(() => void queries.renewOutboxLeases([...held], OUTBOX_LEASE_MS).catch(deps.onError), OUTBOX_RENEW_MS);
    const byProcess = new Map<string, OutboxEntry[]>();
    for (const e of entries) byProcess.set(e.processId, [...(byProcess.get(e.processId) ?? []), e]);
    let done = 0;
    try {
      await Promise.all(
        [...byProcess.values()].map((own) =>
          limit(async () => {
            for (const e of own) {
              if (stopped) return; // handed back below
              const ok = await carryOut(e);
              held.delete(e.id);
              if (!ok) return; // the later entries of this process wait for it: handed back below
              done++;
            }
          }),
        ),
      );
    } finally {
      clearInterval(renew);
      for (const id of held) await outbox.release(id);
    }
    return !stopped && (done > 0 || entries.length === OUTBOX_CLAIM);
  };
  const finished = async (processId: string) => {
    try {
      return ['completed', 'failed', 'cancelled'].includes((await deps.gateway.describe(processId)).status);
    } catch {
      return false;
    }
  };

  /** Turns the next events into deliveries, and disables the endpoints whose backlog that took over a cap. */
  const dispatch = () =>
    deps.pool.transaction(async (trx) => {
      const dispatched = await createDispatchQueries(trx).dispatchBatch(EVENTS_PER_ROUND);
      if (dispatched.tenants.length === 0) return dispatched.dispatched;
      const over = await createDispatchQueries(trx).overCap(dispatched.tenants, {
        perEndpoint: limits.pendingPerEndpoint,
        perTenant: limits.pendingPerTenant,
      });
      for (const o of over) {
        const cap =
          o.pending > limits.pendingPerEndpoint
            ? `WEBHOOK_MAX_PENDING_PER_ENDPOINT=${limits.pendingPerEndpoint}`
            : `WEBHOOK_MAX_PENDING_PER_TENANT=${limits.pendingPerTenant}, with ${o.tenantPending} retries waiting for the tenant's endpoints`;
        const sentence = `${o.pending} deliveries were waiting for a retry to the endpoint, more than the backlog allowed (${cap}); enabling it again redelivers them.`;
        await disableEndpointFor(trx, o.endpointId, 'backlog', sentence);
      }
      return dispatched.dispatched;
    });

  const round = async () => {
    while (!stopped) {
      const dispatched = await dispatch();
      // New deliveries are first attempted in batches: one process per batch, not per delivery, started
      // through the outbox like every process (drained just below).
      // One tenant per batch (formBatch): a round forms batches until no delivery is left unbatched.
      while (!stopped && (await queries.formBatch(randomUUID(), batchSize)).rowCount > 0);
      const batches = await queries.findUnstartedBatches(BATCHES_PER_ROUND);
      if (batches.length > 0) {
        await deps.pool.transaction(async (trx) => {
          for (const { batchId, tenantId, traceContext } of batches) {
            await createProcessOutboxQueries(trx).enqueueStart({
              kind: 'delivery-batch',
              entityId: batchId,
              tenantId,
              input: { batchId, scheduleMs: deps.scheduleMs },
              traceContext,
            });
            await createDispatchQueries(trx).markBatchStarted(batchId);
          }
        });
      }
      const drained = await drainOutbox();
      if (dispatched === 0 && batches.length === 0 && !drained) return;
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
        lastRoundAt = Date.now();
        if (again) {
          again = false;
          void wake();
        }
      });
    return running;
  };

  const listener: Listener = await listen(deps.databaseUrl, { iam_events: () => void wake() }, () => void wake());
  const poll = () => {
    timer = setTimeout(() => {
      void wake().finally(() => !stopped && poll());
    }, deps.pollMs ?? 1000);
  };
  poll();
  void wake();

  // A round is due every pollMs; many missed ones mean the loop is gone.
  const staleMs = Math.max(30_000, 10 * (deps.pollMs ?? 1000));
  return {
    trouble: () => {
      if (stopped) return 'stopped';
      const idleMs = Date.now() - lastRoundAt;
      return running || idleMs < staleMs ? null : `no dispatch round for ${Math.round(idleMs / 1000)} s`;
    },
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
