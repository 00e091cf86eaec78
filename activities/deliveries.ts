// Attempts of deliveries to webhook endpoints and notification channels: one delivery (a retry) or a whole
// batch (first attempts) go through the same path, with the database work done in bulk. An attempt already
// recorded is answered from its record, not sent again; but a send whose record was not written yet when its
// worker died (SIGKILL, up to CONCURRENCY in flight) is sent again by the retry of the activity, with the same
// X-Service-Delivery-Id. Delivery is at least once: receivers dedupe on that id (docs/incoming/webhooks.md).
import type { DatabasePool } from 'slonik';
import { decrypt } from '../lib/crypto.ts';
import { disableEndpointFor } from '../db/events/webhooks/disable.ts';
import { createDeliveryQueries, type DeliveryTarget, type Outcome, type RecordedAttempt } from '../db/events/webhooks/deliveries.ts';
import { createDispatchQueries } from '../db/processes/dispatch.ts';
import { createWebhookDeliveryEndpointQueries } from '../db/events/webhooks/queries.ts';
import type { Activities, AttemptResult } from '../workflows/activities.ts';
import { buildChannelRequest } from '../lib/notifications/build-request.ts';
import type { ChannelKind } from '../lib/notifications/channel-kinds.ts';
import { postOutbound } from '../lib/outbound/http-client.ts';
import type { LookupFn } from '../lib/outbound/ssrf-guard.ts';
import { buildWebhookRequest } from '../lib/webhook-request.ts';
import { buildForwardRequest } from '../lib/forwarding/build-request.ts';
import type { ForwardingConfig, ForwardingKind, ForwardingSecrets } from '../lib/forwarding/kinds.ts';
import { createLimiter } from '../lib/limiter.ts';
import type { ProcessMetrics } from '../lib/metrics/processes.ts';

export interface DeliveryDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
  /** An endpoint failing for longer than this (every attempt failed) is disabled. */
  disableAfterMs: number;
  baseUrls: { pagerduty: string; datadog: string | null };
  lookup?: LookupFn;
  /**
   * The engine's view of the running activity, when it has one (Temporal: heartbeats and cancellation, see
   * worker/temporal-activity-context.ts); the embedded engine has none (its steps have no timeout).
   */
  progress?: () => ActivityProgress | undefined;
  /** Counts each attempt's outcome (iam_delivery_attempts_total). */
  metrics?: ProcessMetrics;
}

export interface ActivityProgress {
  /** Tells the engine the activity is alive (and how far it got). */
  heartbeat(details?: unknown): void;
  /** Aborted when the engine cancels the activity (its heartbeat or start-to-close timeout passed, the process was cancelled). */
  signal: AbortSignal;
}

/** Requests in flight at once across every batch this process runs: more only adds sockets and contention. */
export const CONCURRENCY = 64;
/** How often a batch heartbeats while it sends. */
const HEARTBEAT_MS = 5000;

/** Writes attempt records as sends finish, coalescing those that finish while a write is in flight. */
function createAttemptRecorder(pool: DatabasePool, onRecorded: (count: number) => void) {
  let queue: (RecordedAttempt & { deliveryId: string })[] = [];
  let writing: Promise<void> | undefined;
  let count = 0;
  const recorded = new Set<string>();
  const write = async () => {
    while (queue.length > 0) {
      const rows = queue;
      queue = [];
      // Best effort: the outcomes written at the end of the batch record every attempt not recorded here.
      await createDeliveryQueries(pool)
        .recordAttempts(rows)
        .then(() => {
          for (const r of rows) recorded.add(r.deliveryId);
          onRecorded((count += rows.length));
        })
        .catch(() => {});
    }
    writing = undefined;
  };
  return {
    add: (deliveryId: string, record: RecordedAttempt) => {
      queue.push({ ...record, deliveryId });
      writing ??= write();
    },
    done: () => writing ?? Promise.resolve(),
    /** Whether the attempt of `deliveryId` is in the database already. */
    has: (deliveryId: string) => recorded.has(deliveryId),
  };
}

const succeeded = (a: RecordedAttempt) => a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;

export function createDeliveryActivities(deps: DeliveryDeps): Pick<Activities, 'attemptDelivery' | 'attemptBatch' | 'continueDeliveries'> {
  const { pool } = deps;
  const limit = createLimiter(CONCURRENCY);

  const send = async (target: DeliveryTarget, attempt: number, decryptOnce: (encrypted: string) => string): Promise<RecordedAttempt> => {
    const startedAt = new Date().toISOString();
    let url: string, body: string, headers: Record<string, string>;
    if (target.endpoint) {
      const secrets = target.endpoint.secretsEncrypted.map(decryptOnce);
      ({ body, headers } = buildWebhookRequest(target.event, target.id, secrets));
      url = target.endpoint.url;
    } else if (target.addOn) {
      const { addOn } = target;
      const secrets = JSON.parse(decryptOnce(addOn.secretsEncrypted)) as ForwardingSecrets;
      ({ url, body, headers } = buildForwardRequest(addOn.kind as ForwardingKind, addOn.config as ForwardingConfig, secrets, target.event));
    } else {
      const channel = target.channel!;
      const secrets = JSON.parse(decryptOnce(channel.secretsEncrypted)) as Record<string, unknown>;
      ({ url, body, headers } = buildChannelRequest(
        channel.kind as ChannelKind,
        channel.config as never,
        secrets as never,
        { ...target.event, tenantId: target.tenantId },
        { deliveryId: target.id, baseUrls: deps.baseUrls },
      ));
    }
    const result = await postOutbound(url, body, headers, { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate, lookup: deps.lookup });
    return {
      attempt,
      startedAt,
      durationMs: Math.round(result.durationMs),
      statusCode: result.statusCode,
      error: result.ok || result.statusCode ? null : result.error,
      responseExcerpt: result.responseExcerpt,
      retryAfterMs: result.retryAfterMs,
    };
  };

  /** Disables an endpoint the service gives up on, with an event, and stops its other pending deliveries. */
  const giveUpOn = (endpointId: string, reason: 'gone' | 'failing') =>
    pool.transaction((trx) =>
      disableEndpointFor(trx, endpointId, reason, reason === 'gone' ? 'The endpoint answered 410 Gone.' : 'Every delivery failed for too long.'),
    );

  /** Sends `attempt` of every target, records all outcomes in bulk, and tells each delivery what comes next. */
  const attemptTargets = async (targets: DeliveryTarget[], attempt: number, nextDelayMs: number | null): Promise<Map<string, AttemptResult>> => {
    const results = new Map<string, AttemptResult>();
    const attempted: { target: DeliveryTarget; record: RecordedAttempt }[] = [];
    const cutShort: string[] = [];
    // A batch records each attempt as it is sent and heartbeats while it runs; once cancelled it sends no more
    // and fails, and its retry answers what was recorded from the records (what was in flight unrecorded is sent again).
    const progress = deps.progress?.();
    const recorder = targets.length > 1 ? createAttemptRecorder(pool, (recorded) => progress?.heartbeat({ recorded })) : undefined;
    const beat = progress && setInterval(() => progress.heartbeat(), HEARTBEAT_MS);
    // The deliveries of a batch share a few endpoints: each secret is decrypted once per batch.
    const decrypted = new Map<string, string>();
    const decryptOnce = (encrypted: string) => {
      let secret = decrypted.get(encrypted);
      if (secret === undefined) decrypted.set(encrypted, (secret = decrypt(deps.masterKey, encrypted)));
      return secret;
    };
    const sendOnce = async (target: DeliveryTarget) => {
      progress?.signal.throwIfAborted();
      const record = await send(target, attempt, decryptOnce);
      recorder?.add(target.id, record);
      return record;
    };
    try {
      // Settled, not raced: on cancellation the sends in flight finish and are recorded before the batch fails.
      const settled = await Promise.allSettled(
        targets.map(async (target) => {
          if (target.status !== 'pending') results.set(target.id, { done: true, status: target.status });
          else if (!(target.endpoint?.active ?? target.channel?.active ?? target.addOn?.active)) cutShort.push(target.id);
          else attempted.push({ target, record: target.recorded ?? (await limit(() => sendOnce(target))) });
        }),
      );
      await recorder?.done();
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      clearInterval(beat);
    }

    const endpointOf = (t: DeliveryTarget) => t.endpoint?.id;
    const failing = [...new Set(attempted.filter((a) => !succeeded(a.record) && a.record.statusCode !== 410).flatMap((a) => endpointOf(a.target) ?? []))];
    const since = failing.length ? await createWebhookDeliveryEndpointQueries(pool).markFailing(failing) : new Map<string, string>();
    const tooLong = new Set(failing.filter((id) => Date.now() - Date.parse(since.get(id) ?? '') > deps.disableAfterMs));
    const gone = new Set(attempted.filter((a) => a.record.statusCode === 410).flatMap((a) => endpointOf(a.target) ?? []));

    const outcomes: Outcome[] = attempted.map(({ target, record }) => {
      const endpointId = endpointOf(target);
      const [status, reason, delay]: [Outcome['status'], string | null, number | null] = succeeded(record)
        ? ['succeeded', null, null]
        : endpointId && gone.has(endpointId)
          ? ['failed', 'endpoint answered 410 Gone', null]
          : endpointId && tooLong.has(endpointId)
            ? ['failed', 'endpoint disabled', null]
            : nextDelayMs === null
              ? ['failed', 'every attempt failed', null]
              : ['pending', null, Math.max(nextDelayMs, record.retryAfterMs ?? 0)];
      const got = { statusCode: record.statusCode, error: record.error };
      results.set(target.id, status === 'pending' ? { done: false, nextDelayMs: delay!, ...got } : { done: true, status, ...got });
      const stored = target.recorded !== null || (recorder?.has(target.id) ?? false);
      return { ...record, deliveryId: target.id, status, reason, nextDelayMs: delay, stored };
    });
    const healthy = [...new Set(attempted.filter((a) => succeeded(a.record)).flatMap((a) => endpointOf(a.target) ?? []))];
    await pool.transaction(async (trx) => {
      await createDeliveryQueries(trx).applyOutcomes(outcomes);
      if (healthy.length) await createWebhookDeliveryEndpointQueries(trx).markHealthy(healthy);
      for (const id of cutShort) await createDeliveryQueries(trx).settleCutShort(id);
    });
    for (const id of cutShort) results.set(id, { done: true, status: 'failed' });
    for (const o of outcomes) deps.metrics?.delivered(o.status === 'pending' ? 'retrying' : o.status);
    for (const id of gone) await giveUpOn(id, 'gone');
    for (const id of tooLong) await giveUpOn(id, 'failing');
    return results;
  };

  return {
    attemptDelivery: async ({ deliveryId, attempt, nextDelayMs }) => {
      const target = await createDeliveryQueries(pool).findTarget(deliveryId, attempt);
      if (!target) return { done: true, status: 'failed' }; // deleted with its endpoint or channel
      return (await attemptTargets([target], attempt, nextDelayMs)).get(deliveryId)!;
    },

    attemptBatch: async ({ batchId, nextDelayMs }) => {
      const targets = await createDeliveryQueries(pool).findBatchTargets(batchId, 1);
      const results = await attemptTargets(targets, 1, nextDelayMs);
      return targets.flatMap((t) => {
        const r = results.get(t.id);
        return r && !r.done ? [{ deliveryId: t.id, tenantId: t.tenantId, nextDelayMs: r.nextDelayMs }] : [];
      });
    },

    continueDeliveries: ({ retries, scheduleMs }) =>
      createDispatchQueries(pool).enqueueStarts(
        'webhook-delivery',
        retries.map((r) => ({
          entityId: r.deliveryId,
          tenantId: r.tenantId,
          input: { deliveryId: r.deliveryId, scheduleMs, firstAttempt: 2, firstDelayMs: r.nextDelayMs },
        })),
      ),
  };
}
