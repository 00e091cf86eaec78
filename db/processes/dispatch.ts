// Turning committed events into deliveries, in commit order, exactly once per (event, target).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventType } from '../event-catalog.ts';

/** How the dispatcher routes events besides subscriptions, by typed event names of the catalog (never literals in SQL). */
export const ROUTING = {
  /** Sent to their one endpoint or channel by the test route itself: never dispatched. */
  notDispatched: ['webhook.test', 'notification_channel.tested'],
  /** To the notification channels its environment's alerting settings name (`data.channelIds`). */
  threatAlert: 'threat.alerted',
  /** An access request's events, to its policy's notification channels (`data.policy.notificationChannelIds`)… */
  elevateRequest: [
    'elevate.request.created',
    'elevate.request.reminded',
    'elevate.request.escalated',
    'elevate.request.approved',
    'elevate.request.denied',
    'elevate.request.expired',
    'elevate.request.cancelled',
  ],
  /** …but an escalation to its escalation channels (`data.policy.escalationChannelIds`). */
  elevateEscalated: 'elevate.request.escalated',
} as const satisfies { notDispatched: readonly EventType[]; threatAlert: EventType; elevateRequest: readonly EventType[]; elevateEscalated: EventType };

const types = (names: readonly EventType[]) => sql.array([...names], 'text');

// An event type pattern matches exactly, or `*`, or a prefix wildcard like `tenant.*`.
const matches = (patterns: ReturnType<typeof sql.fragment>) => sql.fragment`EXISTS (
  SELECT 1 FROM unnest(${patterns}) p
  WHERE p = '*' OR p = e.type OR (right(p, 2) = '.*' AND starts_with(e.type, left(p, -1))))`;

export function createDispatchQueries(db: CommonQueryMethods) {
  return {
    /**
     * Dispatches the next batch of events to the endpoints and channels that existed when each occurred,
     * in stream order `(tx_id, sequence)` and only below the horizon of running transactions, for the
     * reasons explained in events.ts: an event committed late is never passed by the cursor. Run inside a
     * transaction: the cursor row lock serialises dispatchers, and the unique indexes on deliveries make
     * a replay harmless.
     */
    dispatchBatch: async (limit: number) => {
      const cursor = await db.one(sql.type(z.object({ tx: z.string(), seq: z.coerce.number() }))`
        SELECT last_tx_id::text AS tx, last_sequence AS seq FROM dispatch_cursor FOR UPDATE`);
      const rows = await db.any(sql.type(z.object({ tx: z.string(), seq: z.coerce.number() }))`
        SELECT tx_id::text AS tx, sequence AS seq FROM events
        WHERE (tx_id, sequence) > (${cursor.tx}::xid8, ${cursor.seq}) AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY tx_id, sequence LIMIT ${limit}`);
      const last = rows.at(-1);
      if (!last) return { dispatched: 0, deliveries: 0 };
      const batch = sql.fragment`SELECT * FROM events e
        WHERE (e.tx_id, e.sequence) > (${cursor.tx}::xid8, ${cursor.seq}) AND (e.tx_id, e.sequence) <= (${last.tx}::xid8, ${last.seq})
          AND e.tenant_id IS NOT NULL AND NOT e.type = ANY(${types(ROUTING.notDispatched)})`;
      const endpoints = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, endpoint_id)
        SELECT e.tenant_id, e.id, w.id FROM (${batch}) e
        JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.active AND e.occurred_at >= w.created_at
          AND (w.environment_id IS NULL OR w.environment_id = e.environment_id) AND ${matches(sql.fragment`w.event_types`)}
        ON CONFLICT DO NOTHING`);
      const channels = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, channel_id)
        SELECT e.tenant_id, e.id, c.id FROM (${batch}) e
        JOIN notification_channels c ON c.tenant_id = e.tenant_id AND c.active AND e.occurred_at >= c.created_at
          AND (c.environment_id IS NULL OR c.environment_id = e.environment_id) AND ${matches(sql.fragment`c.event_types`)}
        ON CONFLICT DO NOTHING`);
      // A threat alert goes to the channels its environment's alerting settings named (db/threats/threats/alerting.ts).
      const alerts = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, channel_id)
        SELECT e.tenant_id, e.id, c.id FROM (${batch}) e
        JOIN notification_channels c ON e.type = ${ROUTING.threatAlert} AND c.tenant_id = e.tenant_id AND c.active
          AND c.id::text IN (SELECT jsonb_array_elements_text(e.data->'channelIds'))
        ON CONFLICT DO NOTHING`);
      // An access request's events go to its policy's channels: escalations to the escalation channels, the rest (approval
      // messages, reminders, outcomes) to the notification channels (db/access/elevate/changes.ts puts them in `policy`).
      const elevate = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, channel_id)
        SELECT e.tenant_id, e.id, c.id FROM (${batch}) e
        JOIN notification_channels c ON c.tenant_id = e.tenant_id AND c.active
          AND c.id::text IN (SELECT jsonb_array_elements_text(e.data->'policy'->(CASE WHEN e.type = ${ROUTING.elevateEscalated}
            THEN 'escalationChannelIds' ELSE 'notificationChannelIds' END)))
        WHERE e.type = ANY(${types(ROUTING.elevateRequest)})
        ON CONFLICT DO NOTHING`);
      await db.query(sql.unsafe`UPDATE dispatch_cursor SET last_tx_id = ${last.tx}::xid8, last_sequence = ${last.seq}`);
      return { dispatched: rows.length, deliveries: endpoints.rowCount + channels.rowCount + alerts.rowCount + elevate.rowCount };
    },

    /**
     * Puts up to `size` deliveries of one tenant (that of the oldest) whose process has not been started into batch
     * `batchId`. One tenant per batch: its process carries the tenant's search attributes, so an operator finds a
     * tenant's first attempts with `TenantId = '…'` in Temporal UI.
     */
    formBatch: (batchId: string, size: number) =>
      db.query(sql.unsafe`
        UPDATE deliveries SET batch_id = ${batchId}
        WHERE id IN (SELECT id FROM deliveries WHERE NOT process_started AND batch_id IS NULL
          AND tenant_id = (SELECT tenant_id FROM deliveries WHERE NOT process_started AND batch_id IS NULL ORDER BY created_at LIMIT 1)
          ORDER BY created_at LIMIT ${size} FOR UPDATE SKIP LOCKED)`),

    /** Batches formed but not started (just now, or before a crash), with their tenant. */
    findUnstartedBatches: async () => [
      ...(await db.any(sql.type(z.object({ batchId: z.uuid(), tenantId: z.uuid() }))`
        SELECT batch_id AS "batchId", min(tenant_id::text)::uuid AS "tenantId" FROM deliveries
        WHERE NOT process_started AND batch_id IS NOT NULL GROUP BY batch_id`)),
    ],

    /** Called in the transaction that enqueues the batch's process start (db/processes/outbox.ts). */
    markBatchStarted: (batchId: string) => db.query(sql.unsafe`UPDATE deliveries SET process_started = true WHERE batch_id = ${batchId}`),
  };
}
