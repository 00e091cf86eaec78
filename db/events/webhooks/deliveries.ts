import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Delivery, DeliveryAttempt } from './rows.ts';

const columns = sql.fragment`
  d.id, d.tenant_id AS "tenantId", d.event_id AS "eventId", e.type AS "eventType", d.endpoint_id AS "endpointId",
  d.channel_id AS "channelId", d.status, d.attempt_count AS "attemptCount", d.last_attempt_at AS "lastAttemptAt",
  d.next_attempt_at AS "nextAttemptAt", d.completed_at AS "completedAt", d.failure_reason AS "failureReason",
  d.redelivery_of AS "redeliveryOf", d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;

const RecordedAttempt = DeliveryAttempt.extend({ retryAfterMs: z.number().int().nullable() });
export type RecordedAttempt = z.infer<typeof RecordedAttempt>;

const Target = z.object({
  id: z.uuid(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  tenantId: z.uuid(),
  event: z.object({
    id: z.uuid(),
    type: z.string(),
    occurredAt: z.string(),
    tenantId: z.uuid().nullable(),
    environmentId: z.uuid().nullable(),
    actor: z.any(),
    subject: z.any(),
    data: z.record(z.string(), z.unknown()),
  }),
  endpoint: z.object({ id: z.uuid(), url: z.string(), active: z.boolean(), secretsEncrypted: z.array(z.string()) }).nullable(),
  channel: z
    .object({ id: z.uuid(), kind: z.string(), config: z.record(z.string(), z.unknown()), secretsEncrypted: z.string(), active: z.boolean() })
    .nullable(),
  /** A forwarding add-on (segment, analytics): its kind, config and sealed secrets. */
  addOn: z
    .object({ id: z.uuid(), kind: z.string(), config: z.record(z.string(), z.unknown()), secretsEncrypted: z.string(), active: z.boolean() })
    .nullable()
    .optional(),
  /** This attempt, when it already ran (an activity replayed after a crash answers from it). */
  recorded: RecordedAttempt.nullable(),
});
export type DeliveryTarget = z.infer<typeof Target>;

/** What one attempt came to: the attempt record, and the delivery's new status. */
export interface Outcome extends RecordedAttempt {
  deliveryId: string;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  nextDelayMs: number | null;
  /** The attempt record is in the database already (written as the batch sent it): only the delivery is updated. */
  stored?: boolean;
}

// Everything sending an attempt needs, for one delivery or a batch: event, target, secrets, and the record
// of this attempt if it already ran.
const targets = (attempt: number) => sql.fragment`
  SELECT d.id, d.status, d.tenant_id AS "tenantId",
    json_build_object('id', e.id, 'type', e.type, 'occurredAt', to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'tenantId', e.tenant_id, 'environmentId', e.environment_id, 'actor', e.actor, 'subject', e.subject, 'data', e.data) AS event,
    CASE WHEN w.id IS NULL THEN NULL ELSE json_build_object('id', w.id, 'url', w.url, 'active', w.active, 'secretsEncrypted', ARRAY(
      SELECT s.secret_encrypted FROM webhook_secrets s WHERE s.endpoint_id = w.id AND (s.expires_at IS NULL OR s.expires_at > now())
      ORDER BY s.created_at DESC)) END AS endpoint,
    CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'kind', c.kind, 'config', c.config,
      'secretsEncrypted', c.secrets_encrypted, 'active', c.active) END AS channel,
    CASE WHEN ao.id IS NULL THEN NULL ELSE json_build_object('id', ao.id, 'kind', ao.kind, 'config', ao.config,
      'secretsEncrypted', ao.secrets_encrypted, 'active', ao.active) END AS "addOn",
    CASE WHEN a.delivery_id IS NULL THEN NULL ELSE json_build_object('attempt', a.attempt,
      'startedAt', to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'durationMs', a.duration_ms,
      'statusCode', a.status_code, 'error', a.error, 'responseExcerpt', a.response_excerpt, 'retryAfterMs', a.retry_after_ms) END AS recorded
  FROM deliveries d JOIN events e ON e.id = d.event_id
  LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id LEFT JOIN notification_channels c ON c.id = d.channel_id
  LEFT JOIN add_ons ao ON ao.id = d.add_on_id
  LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.filed_at = d.filed_at AND a.attempt = ${attempt}`;

/** Keyset position: the last delivery of the previous page (compared at full timestamp precision). */
export interface Cursor {
  id: string;
}

/** The endpoint or the notification channel whose deliveries are read. */
export type DeliveryOwner = { endpointId: string } | { channelId: string };

/** Deliveries as the management API reads them: bound to the caller's tenant. */
export function createTenantDeliveryQueries(db: CommonQueryMethods, tenantId: string) {
  return {
    findDelivery: (deliveryId: string, scope: DeliveryOwner) =>
      db.maybeOne(sql.type(Delivery)`
        SELECT ${columns} FROM deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.tenant_id = ${tenantId} AND d.id = ${deliveryId} AND ${'endpointId' in scope ? sql.fragment`d.endpoint_id = ${scope.endpointId}` : sql.fragment`d.channel_id = ${scope.channelId}`}`),

    /** Newest first, keyset-paged by (created_at, id). */
    findDeliveries: async (scope: DeliveryOwner, filter: { status?: string; after?: Cursor; limit: number }) => [
      ...(await db.any(sql.type(Delivery)`
        SELECT ${columns} FROM deliveries d JOIN events e ON e.id = d.event_id
        WHERE ${sql.join(
          [
            sql.fragment`d.tenant_id = ${tenantId}`,
            'endpointId' in scope ? sql.fragment`d.endpoint_id = ${scope.endpointId}` : sql.fragment`d.channel_id = ${scope.channelId}`,
            filter.status ? sql.fragment`d.status = ${filter.status}` : sql.fragment`true`,
            filter.after
              ? sql.fragment`(d.created_at, d.id) < (SELECT c.created_at, c.id FROM deliveries c WHERE c.id = ${filter.after.id})`
              : sql.fragment`true`,
          ],
          sql.fragment` AND `,
        )}
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${filter.limit}`)),
    ],
  };
}

export function createDeliveryQueries(db: CommonQueryMethods) {
  return {
    findTarget: (deliveryId: string, attempt: number) => db.maybeOne(sql.type(Target)`${targets(attempt)} WHERE d.id = ${deliveryId}`),

    /** The pending deliveries of a batch, with what sending their `attempt` needs. */
    // Rows are built by the SQL above from typed columns; with up to a thousand per batch, validating each
    // with zod would cost more than the rest of the attempt's database work.
    findBatchTargets: async (batchId: string, attempt: number) => [
      ...((await db.any(
        sql.unsafe`${targets(attempt)} WHERE d.batch_id = ${batchId} AND d.status = 'pending' ORDER BY d.created_at`,
      )) as readonly DeliveryTarget[]),
    ],

    /**
     * Records attempts as a batch sends them, before their outcomes are applied: a batch cut short and retried
     * answers these from their record instead of sending them again.
     */
    // unscoped: delivery work records the attempts of the deliveries it sent, by id, across tenants.
    recordAttempts: async (attempts: (RecordedAttempt & { deliveryId: string })[]) => {
      if (attempts.length === 0) return;
      await db.query(sql.unsafe`
        INSERT INTO delivery_attempts (delivery_id, filed_at, attempt, started_at, duration_ms, status_code, error, response_excerpt, retry_after_ms)
        SELECT x."deliveryId", d.filed_at, x.attempt, x."startedAt", x."durationMs", x."statusCode", x.error, x."responseExcerpt", x."retryAfterMs"
        FROM jsonb_to_recordset(${sql.jsonb(attempts as never)}) AS x("deliveryId" uuid, attempt int, "startedAt" timestamptz, "durationMs" int,
          "statusCode" int, error text, "responseExcerpt" text, "retryAfterMs" int)
        JOIN deliveries d ON d.id = x."deliveryId" -- deleted with its endpoint meanwhile: nothing to record
        ON CONFLICT DO NOTHING`);
    },

    /** Records attempts (those not stored yet) and settles or reschedules their deliveries, in two statements however many there are. */
    // unscoped: delivery work (the deliveries' processes) settles the deliveries it sent, by id, across tenants.
    applyOutcomes: async (outcomes: Outcome[]) => {
      if (outcomes.length === 0) return;
      // The update needs none of the attempt's details (the response excerpts are most of its bytes).
      const rows = sql.jsonb(
        outcomes.map(({ deliveryId, attempt, startedAt, status, reason, nextDelayMs }) => ({ deliveryId, attempt, startedAt, status, reason, nextDelayMs })),
      );
      const unstored = outcomes.filter((o) => !o.stored);
      if (unstored.length > 0)
        await db.query(sql.unsafe`
        INSERT INTO delivery_attempts (delivery_id, filed_at, attempt, started_at, duration_ms, status_code, error, response_excerpt, retry_after_ms)
        SELECT x."deliveryId", d.filed_at, x.attempt, x."startedAt", x."durationMs", x."statusCode", x.error, x."responseExcerpt", x."retryAfterMs"
        FROM jsonb_to_recordset(${sql.jsonb(unstored as never)}) AS x("deliveryId" uuid, attempt int, "startedAt" timestamptz, "durationMs" int,
          "statusCode" int, error text, "responseExcerpt" text, "retryAfterMs" int)
        JOIN deliveries d ON d.id = x."deliveryId" -- deleted with its endpoint meanwhile: nothing to record
        ON CONFLICT DO NOTHING`);
      await db.query(sql.unsafe`
        UPDATE deliveries d SET
          attempt_count = GREATEST(d.attempt_count, x.attempt), last_attempt_at = x."startedAt", updated_at = now(),
          status = x.status, failure_reason = x.reason,
          completed_at = CASE WHEN x.status = 'pending' THEN NULL ELSE now() END,
          next_attempt_at = CASE WHEN x.status = 'pending' THEN now() + make_interval(secs => x."nextDelayMs" / 1000.0) END
        FROM jsonb_to_recordset(${rows}) AS x("deliveryId" uuid, attempt int, "startedAt" timestamptz, status text, reason text, "nextDelayMs" int)
        WHERE d.id = x."deliveryId" AND d.status = 'pending'`);
    },

    /** A delivery whose endpoint or channel was disabled before it could be attempted. */
    // unscoped: delivery work settles the delivery it was about to send, by id.
    settleCutShort: (deliveryId: string) =>
      db.query(sql.unsafe`
        UPDATE deliveries SET status = 'failed', failure_reason = 'endpoint disabled', completed_at = now(), next_attempt_at = NULL, updated_at = now()
        WHERE id = ${deliveryId} AND status = 'pending'`),

    /** Pending deliveries of an endpoint that was just disabled: they stop, and a re-enable recovers them. */
    // unscoped: the service disabling an endpoint (delivery work, the dispatcher) acts on it by id.
    settleAllPendingOfEndpoint: (endpointId: string, reason: string) =>
      db.query(sql.unsafe`
        UPDATE deliveries SET status = 'failed', failure_reason = ${reason}, completed_at = now(), next_attempt_at = NULL, updated_at = now()
        WHERE endpoint_id = ${endpointId} AND status = 'pending'`),

    findAttempts: async (deliveryId: string) => [
      ...(await db.any(sql.type(DeliveryAttempt)`
        SELECT attempt, started_at AS "startedAt", duration_ms AS "durationMs", status_code AS "statusCode", error, response_excerpt AS "responseExcerpt"
        FROM delivery_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt`)),
    ],

    /** A redelivery is filed when it is made (migration 0060): its retries start now, whenever its event occurred. */
    insertRedelivery: (original: { id: string; tenantId: string; eventId: string; endpointId: string | null; channelId: string | null }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO deliveries (tenant_id, event_id, endpoint_id, channel_id, redelivery_of, filed_at)
        VALUES (${original.tenantId}, ${original.eventId}, ${original.endpointId}, ${original.channelId}, ${original.id}, now()) RETURNING id`),

    /** An original delivery, filed at its event's time like the dispatcher's (migration 0060). */
    insertDelivery: (d: { tenantId: string; eventId: string; endpointId?: string | null; channelId?: string | null; addOnId?: string | null }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO deliveries (tenant_id, event_id, endpoint_id, channel_id, add_on_id, filed_at)
        SELECT ${d.tenantId}, ${d.eventId}, ${d.endpointId ?? null}, ${d.channelId ?? null}, ${d.addOnId ?? null}, e.occurred_at
        FROM events e WHERE e.id = ${d.eventId} RETURNING id`),

    /** Failed deliveries of an endpoint since a time, whose event has no later successful or pending delivery. */
    findFailedSince: async (endpointId: string, since: string, reason?: string) => [
      ...(await db.any(sql.type(
        z.object({ id: z.uuid(), tenantId: z.uuid(), eventId: z.uuid(), endpointId: z.uuid().nullable(), channelId: z.uuid().nullable() }),
      )`
        SELECT DISTINCT ON (d.event_id) d.id, d.tenant_id AS "tenantId", d.event_id AS "eventId", d.endpoint_id AS "endpointId", d.channel_id AS "channelId"
        FROM deliveries d
        WHERE d.endpoint_id = ${endpointId} AND d.status = 'failed' AND d.created_at >= ${since}::timestamptz
          AND ${reason ? sql.fragment`d.failure_reason = ${reason}` : sql.fragment`true`}
          AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.endpoint_id = d.endpoint_id AND o.event_id = d.event_id AND o.status IN ('pending', 'succeeded'))
        ORDER BY d.event_id, d.created_at DESC`)),
    ],
  };
}
