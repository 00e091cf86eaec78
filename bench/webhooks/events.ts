// Committing events the way a tenant update does (recordChange: an audit entry and the event, in one
// transaction), and reading back what the service recorded about their deliveries.
import { sql, type DatabasePool } from 'slonik';
import type { WebhookEvent } from '../../lib/webhook-request.ts';
import { recordChange, type Change } from '../../db/shared/changes.ts';
import type { Tenant } from '../../db/tenants/tenants/rows.ts';
import { sleep } from './util.ts';

export interface Fixture {
  pool: DatabasePool;
  tenantId: string;
  organizationId: string;
  tenant: Tenant;
}

let serial = 0;
const change = (f: Fixture): Change<'tenant.updated'> => {
  const description = `bench ${++serial}`;
  return {
    actor: { type: 'system', id: 'bench' },
    action: 'tenant.update',
    resource: { type: 'tenant', id: f.tenantId },
    scope: { organizationId: f.organizationId, tenantId: f.tenantId },
    before: { description: f.tenant.description },
    after: { description },
    event: { type: 'tenant.updated', data: { tenant: { ...f.tenant, description }, previous: { description: f.tenant.description } } },
  };
};

/** Commits one event in its own transaction; returns its id. */
export const commitEvent = (f: Fixture) => f.pool.transaction(async (trx) => (await recordChange(trx, change(f))).eventId);

/** Commits `count` events in transactions of `batch`, one after the other; returns their ids in commit order. */
export async function commitEvents(f: Fixture, count: number, batch: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count) {
    const n = Math.min(batch, count - ids.length);
    ids.push(
      ...(await f.pool.transaction(async (trx) => {
        const out: string[] = [];
        for (let i = 0; i < n; i++) out.push((await recordChange(trx, change(f))).eventId);
        return out;
      })),
    );
  }
  return ids;
}

/** Until every delivery has settled (the receiver can have a request before the engine records its outcome). */
export async function settled(pool: DatabasePool, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const pending = Number(await pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM deliveries WHERE status = 'pending'`));
    if (pending === 0) return;
    if (performance.now() > deadline) throw new Error(`${pending} deliveries still pending`);
    await sleep(50);
  }
}

/** The events as the engine sends them (findTarget's shape), for the baselines. */
export async function eventsOf(pool: DatabasePool, ids: string[]): Promise<WebhookEvent[]> {
  const rows = await pool.any(sql.unsafe`
    SELECT id, type, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "occurredAt", data
    FROM events WHERE id = ANY(${sql.array(ids, 'uuid')}) ORDER BY sequence`);
  return rows as unknown as WebhookEvent[];
}

/**
 * Where the time of each delivery goes, from what the service records (epoch ms): the delivery row written
 * by the dispatcher, the creation of its batch's `delivery-batch` process (DBOS workflow row), the first
 * attempt begun (the activity is about to POST), the delivery settled.
 */
export interface Stages {
  eventId: string;
  batchId: string | null;
  dispatched: number;
  batchStarted: number | null;
  attemptStarted: number | null;
  completed: number | null;
}

export async function stagesOf(pool: DatabasePool, eventIds: string[]): Promise<Map<string, Stages>> {
  const rows = await pool.any(sql.unsafe`
    SELECT d.event_id AS "eventId", d.batch_id AS "batchId",
      extract(epoch FROM d.created_at)::float8 * 1000 AS dispatched,
      w.created_at::float8 AS "batchStarted",
      extract(epoch FROM a.started_at)::float8 * 1000 AS "attemptStarted",
      extract(epoch FROM d.completed_at)::float8 * 1000 AS completed
    FROM deliveries d
    LEFT JOIN dbos.workflow_status w ON w.workflow_uuid = 'delivery-batch:' || d.batch_id
    LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
    WHERE d.event_id = ANY(${sql.array(eventIds, 'uuid')}) AND d.redelivery_of IS NULL`);
  return new Map((rows as unknown as Stages[]).map((r) => [r.eventId, r]));
}

/** Milestones of a run, ms after `t0` (wall clock): first/last of each stage over its deliveries. */
export function milestones(stages: Stages[], t0: number) {
  const at = (pick: (s: Stages) => number | null, of: 'first' | 'last') => {
    const v = stages.map(pick).filter((x): x is number => x != null);
    return v.length ? Math.round((of === 'first' ? Math.min(...v) : Math.max(...v)) - t0) : null;
  };
  return {
    batches: new Set(stages.map((s) => s.batchId).filter((b) => b != null)).size,
    firstDispatchedMs: at((s) => s.dispatched, 'first'),
    lastDispatchedMs: at((s) => s.dispatched, 'last'),
    firstBatchStartedMs: at((s) => s.batchStarted, 'first'),
    lastBatchStartedMs: at((s) => s.batchStarted, 'last'),
    firstAttemptMs: at((s) => s.attemptStarted, 'first'),
    lastAttemptMs: at((s) => s.attemptStarted, 'last'),
    lastSettledMs: at((s) => s.completed, 'last'),
  };
}
export type Milestones = ReturnType<typeof milestones>;
