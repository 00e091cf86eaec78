// Turning committed events into deliveries, in commit order, exactly once per (event, target).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventType } from '../event-catalog.ts';
import type { ProcessInput, ProcessKind } from '../../lib/processes/contracts.ts';
import { processId } from './outbox.ts';
import type { AddOnCategory } from '../add-ons/rows.ts';

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

/** The add-on categories whose active add-on receives the environment's matching events (db/add-ons/rows.ts). */
const FORWARDING_CATEGORIES = ['customer_data', 'analytics'] as const satisfies readonly AddOnCategory[];

const types = (names: readonly EventType[]) => sql.array([...names], 'text');

// An event type pattern matches exactly, or `*`, or a prefix wildcard like `tenant.*`.
const matches = (patterns: ReturnType<typeof sql.fragment>) => sql.fragment`EXISTS (
  SELECT 1 FROM unnest(${patterns}) p
  WHERE p = '*' OR p = e.type OR (right(p, 2) = '.*' AND starts_with(e.type, left(p, -1))))`;

// unscoped: the dispatcher is cross-scope system work: it routes every tenant's events and batches every tenant's deliveries.
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
      if (!last) return { dispatched: 0, deliveries: 0, tenants: [] };
      const batch = sql.fragment`SELECT * FROM events e
        WHERE (e.tx_id, e.sequence) > (${cursor.tx}::xid8, ${cursor.seq}) AND (e.tx_id, e.sequence) <= (${last.tx}::xid8, ${last.seq})
          AND e.tenant_id IS NOT NULL AND NOT e.type = ANY(${types(ROUTING.notDispatched)})`;
      const endpoints = await db.one(sql.type(z.object({ n: z.number(), tenants: z.array(z.uuid()) }))`
        WITH inserted AS (
          INSERT INTO deliveries (tenant_id, event_id, filed_at, endpoint_id)
          SELECT e.tenant_id, e.id, e.occurred_at, w.id FROM (${batch}) e
          JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.active AND e.occurred_at >= w.created_at
            AND (w.environment_id IS NULL OR w.environment_id = e.environment_id) AND ${matches(sql.fragment`w.event_types`)}
          ON CONFLICT DO NOTHING
          RETURNING tenant_id)
        SELECT count(*)::int AS n, coalesce(array_agg(DISTINCT tenant_id), '{}') AS tenants FROM inserted`);
      const channels = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, filed_at, channel_id)
        SELECT e.tenant_id, e.id, e.occurred_at, c.id FROM (${batch}) e
        JOIN notification_channels c ON c.tenant_id = e.tenant_id AND c.active AND e.occurred_at >= c.created_at
          AND (c.environment_id IS NULL OR c.environment_id = e.environment_id) AND ${matches(sql.fragment`c.event_types`)}
        ON CONFLICT DO NOTHING`);
      // A threat alert goes to the channels its environment's alerting settings named (db/threats/threats/alerting.ts).
      const alerts = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, filed_at, channel_id)
        SELECT e.tenant_id, e.id, e.occurred_at, c.id FROM (${batch}) e
        JOIN notification_channels c ON e.type = ${ROUTING.threatAlert} AND c.tenant_id = e.tenant_id AND c.active
          AND c.id::text IN (SELECT jsonb_array_elements_text(e.data->'channelIds'))
        ON CONFLICT DO NOTHING`);
      // An access request's events go to its policy's channels: escalations to the escalation channels, the rest (approval
      // messages, reminders, outcomes) to the notification channels (db/access/elevate/changes.ts puts them in `policy`).
      const elevate = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, filed_at, channel_id)
        SELECT e.tenant_id, e.id, e.occurred_at, c.id FROM (${batch}) e
        JOIN notification_channels c ON c.tenant_id = e.tenant_id AND c.active
          AND c.id::text IN (SELECT jsonb_array_elements_text(e.data->'policy'->(CASE WHEN e.type = ${ROUTING.elevateEscalated}
            THEN 'escalationChannelIds' ELSE 'notificationChannelIds' END)))
        WHERE e.type = ANY(${types(ROUTING.elevateRequest)})
        ON CONFLICT DO NOTHING`);
      // To the environment's active forwarding add-ons (segment, analytics) whose `config.eventTypes` match.
      const addOns = await db.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, filed_at, add_on_id)
        SELECT e.tenant_id, e.id, e.occurred_at, a.id FROM (${batch}) e
        JOIN add_ons a ON a.environment_id = e.environment_id AND a.active AND a.category = ANY(${sql.array([...FORWARDING_CATEGORIES], 'text')})
          AND e.occurred_at >= a.created_at AND ${matches(sql.fragment`ARRAY(SELECT jsonb_array_elements_text(a.config->'eventTypes'))`)}
        ON CONFLICT DO NOTHING`);
      await db.query(sql.unsafe`UPDATE dispatch_cursor SET last_tx_id = ${last.tx}::xid8, last_sequence = ${last.seq}`);
      return {
        dispatched: rows.length,
        deliveries: endpoints.n + channels.rowCount + alerts.rowCount + elevate.rowCount + addOns.rowCount,
        /** Tenants that got webhook deliveries: those whose backlog may have passed a cap (overCap). */
        tenants: endpoints.tenants,
      };
    },

    /**
     * Active endpoints of `tenants` over a backlog cap: more than `perEndpoint` deliveries waiting for a retry (pending
     * after a failed attempt), or, the tenant's endpoints taken from the largest backlog down, those without which its
     * retries would still number more than `perTenant`. A burst of new deliveries to a healthy endpoint is no backlog:
     * its batches cost one process each. Counted from the retry index (bounded by the caps themselves).
     */
    overCap: async (tenants: readonly string[], limits: { perEndpoint: number; perTenant: number }) => [
      ...(await db.any(sql.type(z.object({ endpointId: z.uuid(), pending: z.number(), tenantPending: z.number() }))`
        WITH pending AS (
          SELECT d.tenant_id, d.endpoint_id, count(*) AS n FROM deliveries d
          WHERE d.status = 'pending' AND d.attempt_count > 0 AND d.endpoint_id IS NOT NULL AND d.tenant_id = ANY(${sql.array([...tenants], 'uuid')})
          GROUP BY d.tenant_id, d.endpoint_id),
        ranked AS (
          SELECT endpoint_id, n, sum(n) OVER (PARTITION BY tenant_id) AS total,
            sum(n) OVER (PARTITION BY tenant_id ORDER BY n DESC, endpoint_id ROWS UNBOUNDED PRECEDING) - n AS larger
          FROM pending)
        SELECT r.endpoint_id AS "endpointId", r.n::int AS pending, r.total::int AS "tenantPending"
        FROM ranked r JOIN webhook_endpoints w ON w.id = r.endpoint_id AND w.active
        WHERE r.n > ${limits.perEndpoint} OR r.total - r.larger > ${limits.perTenant}
        ORDER BY r.n DESC`)),
    ],

    /**
     * Enqueues the starts of many processes of one kind in one statement (the same rows as outbox.enqueueStart writes one
     * by one): a batch hands each of its failed deliveries to a process of its own.
     */
    enqueueStarts: async <K extends ProcessKind>(kind: K, starts: readonly { entityId: string; tenantId: string | null; input: ProcessInput<K> }[]) => {
      if (starts.length === 0) return;
      const rows = starts.map((s, n) => ({ n, processId: processId(kind, s.entityId), tenantId: s.tenantId, input: s.input }));
      await db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload)
        SELECT 'start', ${kind}, x."processId", x."tenantId", x.input
        FROM jsonb_to_recordset(${sql.jsonb(rows as never)}) AS x(n int, "processId" text, "tenantId" uuid, input jsonb)
        ORDER BY x.n`);
    },

    /** Extends the lease of outbox entries still being carried out (a holder that dies lets them go within one lease). */
    renewOutboxLeases: (ids: readonly number[], leaseMs: number) =>
      db.query(sql.unsafe`
        UPDATE process_outbox SET leased_until = now() + ${leaseMs} * interval '1 millisecond'
        WHERE id = ANY(${sql.array([...ids], 'int8')}) AND leased_until IS NOT NULL`),

    /**
     * Puts up to `size` deliveries of one tenant (that of the oldest) whose process has not been started into batch
     * `batchId`. One tenant per batch: its process carries the tenant's search attributes, so an operator finds a
     * tenant's first attempts with `TenantId = '…'` in Temporal UI.
     */
    formBatch: (batchId: string, size: number) =>
      db.query(sql.unsafe`
        UPDATE deliveries SET batch_id = ${batchId}
        WHERE (id, filed_at) IN (SELECT id, filed_at FROM deliveries WHERE NOT process_started AND batch_id IS NULL
          AND tenant_id = (SELECT tenant_id FROM deliveries WHERE NOT process_started AND batch_id IS NULL ORDER BY created_at LIMIT 1)
          ORDER BY created_at LIMIT ${size} FOR UPDATE SKIP LOCKED)`),

    /** Up to `limit` batches formed but not started (just now, or before a crash), with their tenant. */
    findUnstartedBatches: async (limit: number) => [
      // The batch's process joins the trace of one of its events (the request that wrote it), when traced.
      ...(await db.any(sql.type(z.object({ batchId: z.uuid(), tenantId: z.uuid(), traceContext: z.string().nullable() }))`
        SELECT d.batch_id AS "batchId", min(d.tenant_id::text)::uuid AS "tenantId", min(e.trace_context) AS "traceContext"
        FROM deliveries d LEFT JOIN events e ON e.id = d.event_id
        WHERE NOT d.process_started AND d.batch_id IS NOT NULL GROUP BY d.batch_id LIMIT ${limit}`)),
    ],

    /** Called in the transaction that enqueues the batch's process start (db/processes/outbox.ts). */
    markBatchStarted: (batchId: string) => db.query(sql.unsafe`UPDATE deliveries SET process_started = true WHERE batch_id = ${batchId}`),
  };
}
