// Reading the event stream of a tenant in a stable order that a cursor can never skip past.
//
// Why not simply `WHERE sequence > cursor ORDER BY sequence`: a sequence value is drawn when a row is
// inserted, not when its transaction commits. Transaction A may draw 41, transaction B draw 42 and commit
// first; a reader then sees 42, moves its cursor past 41, and never returns A's event once A commits.
//
// Two rules close that gap:
// 1. Only events whose writing transaction finished before every transaction still running are returned:
//    `tx_id < pg_snapshot_xmin(pg_current_snapshot())`. Every transaction that may still add an event holds
//    an id >= that horizon (running now), or will get a larger one (not yet started), so the set of events
//    below the horizon is final: nothing will ever be added to it.
// 2. The order (and the cursor) is `(tx_id, sequence)`, not `sequence` alone. Filtering by tx_id while
//    ordering by sequence would still skip: an old transaction (low tx_id) can draw its sequence after a
//    younger one that is still running, so rule 1 would release sequence 42 while 41 is pending. Under
//    `(tx_id, sequence)` everything below the horizon precedes everything above it, so a returned event
//    is never followed by a later commit that sorts before it. Within one transaction, and whenever
//    writers do not overlap, this is plain sequence order.
// A long transaction holds the horizon back: its own and later events wait until it ends (bounded by the
// pool's statement timeout), they are delayed, never lost. tx_id is an xid8 (64-bit, no wraparound).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const StoredEvent = z.object({
  id: uuid,
  type: z.string(),
  sequence: z.coerce.number().int(),
  txId: z.string().describe('Id of the writing transaction (xid8), the first key of the stream order'),
  organizationId: uuid.nullable(),
  tenantId: uuid.nullable(),
  environmentId: uuid.nullable(),
  actor: z.object({ type: z.string(), id: z.string().nullable() }),
  subject: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  data: z.record(z.string(), z.unknown()),
  occurredAt: isoTimestamp,
});
export type StoredEvent = z.infer<typeof StoredEvent>;

/** A position in the stream: the last event a reader has seen. `{ txId: '0', sequence: '0' }` is the start. */
export interface StreamPosition {
  txId: string;
  sequence: string;
}

export interface EventFilter {
  /** Exact types, and prefixes (from `tenant.*`, given as `tenant.`); an event matching any is kept. */
  types: string[];
  prefixes: string[];
  environmentId?: string | undefined;
  occurredAfter?: string | undefined;
  occurredBefore?: string | undefined;
}

const columns = sql.fragment`
  e.id, e.type, e.sequence, e.tx_id::text AS "txId", e.organization_id AS "organizationId", e.tenant_id AS "tenantId",
  e.environment_id AS "environmentId", e.actor, e.subject, e.data, e.occurred_at AS "occurredAt"`;

function conditions(filter: EventFilter) {
  const where = [];
  if (filter.types.length > 0 || filter.prefixes.length > 0) {
    where.push(sql.fragment`(e.type = ANY(${sql.array(filter.types, 'text')})
      OR EXISTS (SELECT 1 FROM unnest(${sql.array(filter.prefixes, 'text')}) p WHERE starts_with(e.type, p)))`);
  }
  if (filter.environmentId) where.push(sql.fragment`e.environment_id = ${filter.environmentId}`);
  if (filter.occurredAfter) where.push(sql.fragment`e.occurred_at >= ${filter.occurredAfter}::timestamptz`);
  if (filter.occurredBefore) where.push(sql.fragment`e.occurred_at < ${filter.occurredBefore}::timestamptz`);
  return where;
}

export function createEventQueries(db: CommonQueryMethods) {
  return {
    /** Up to `limit` events of a tenant after `after`, in stream order, below the commit horizon. */
    findTenantEventsAfter: async (tenantId: string, after: StreamPosition, filter: EventFilter, limit: number) => [
      ...(await db.any(sql.type(StoredEvent)`
        SELECT ${columns} FROM events e
        WHERE ${sql.join(
          [
            sql.fragment`e.tenant_id = ${tenantId}`,
            sql.fragment`e.tx_id < pg_snapshot_xmin(pg_current_snapshot())`,
            sql.fragment`(e.tx_id, e.sequence) > (${after.txId}::xid8, ${after.sequence}::int8)`,
            ...conditions(filter),
          ],
          sql.fragment` AND `,
        )}
        ORDER BY e.tx_id, e.sequence
        LIMIT ${limit}`)),
    ],
  };
}
