// Process starts and signals, recorded with the business change that calls for them (see 0003 migration): the one
// way the code starts or signals a process. Both are typed by process kind (and topic): the input and each topic's
// message are the contracts of lib/processes/contracts.ts. The dispatcher carries the entries out.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp } from '../shared/rows.ts';
import { currentTraceparent } from '../../lib/telemetry.ts';
import type { MessageOf, ProcessInput, ProcessKind, TopicOf } from '../../lib/processes/contracts.ts';

/** The id of the process of `kind` for one entity, `<kind>:<entityId>`: an idempotency key (no PII in it). */
export const processId = (kind: ProcessKind, entityId: string) => `${kind}:${entityId}`;

/** A start to carry out, typed by kind. */
export type OutboxStart = {
  [K in ProcessKind]: { id: number; action: 'start'; kind: K; processId: string; tenantId: string | null; input: ProcessInput<K>; traceContext: string | null };
}[ProcessKind];

/** A signal to carry out, typed by kind and topic (kinds without topics have none). */
export type OutboxSignal = {
  [K in ProcessKind]: {
    [T in TopicOf<K>]: { id: number; action: 'signal'; kind: K; processId: string; topic: T; payload: MessageOf<K, T>; traceContext: string | null };
  }[TopicOf<K>];
}[ProcessKind];

export type OutboxEntry = OutboxStart | OutboxSignal;

const Row = z.object({
  id: z.coerce.number(),
  action: z.enum(['start', 'signal']),
  kind: z.string().nullable(),
  processId: z.string(),
  tenantId: z.uuid().nullable(),
  topic: z.string().nullable(),
  payload: z.unknown(),
  traceContext: z.string().nullable(),
});

/** Rows are written only by enqueueStart and enqueueSignal below, so they hold the types those took. */
function toEntry(row: z.infer<typeof Row>): OutboxEntry {
  // Signals enqueued before their kind was recorded: the kind is the prefix of the process id.
  const kind = row.kind ?? row.processId.slice(0, row.processId.indexOf(':'));
  return (
    row.action === 'start'
      ? { id: row.id, action: 'start', kind, processId: row.processId, tenantId: row.tenantId, input: row.payload, traceContext: row.traceContext }
      : { id: row.id, action: 'signal', kind, processId: row.processId, topic: row.topic, payload: row.payload, traceContext: row.traceContext }
  ) as OutboxEntry;
}

export function createProcessOutboxQueries(db: CommonQueryMethods) {
  return {
    /**
     * Starts the process of `kind` for `entityId` after commit; starting an id that exists is a no-op. The process
     * joins the trace of `traceContext`, by default the active one (lib/telemetry.ts).
     */
    enqueueStart: <K extends ProcessKind>(p: { kind: K; entityId: string; tenantId: string | null; input: ProcessInput<K>; traceContext?: string | null }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload, trace_context)
        VALUES ('start', ${p.kind}, ${processId(p.kind, p.entityId)}, ${p.tenantId}, ${sql.jsonb(p.input as never)},
          ${p.traceContext ?? currentTraceparent()})`),

    /** Sends `payload` on `topic` to the process of `kind` for `entityId` after commit (after any start enqueued before it). */
    enqueueSignal: <K extends ProcessKind, T extends TopicOf<K>>(p: { kind: K; entityId: string; topic: T; payload: MessageOf<K, T> }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, topic, payload, trace_context)
        VALUES ('signal', ${p.kind}, ${processId(p.kind, p.entityId)}, ${p.topic}, ${sql.jsonb(p.payload as never)}, ${currentTraceparent()})`),

    /**
     * Claims up to `limit` due entries, oldest first, under a lease of `leaseMs` (one short statement: the caller
     * carries them out outside any transaction, then removes, fails or releases each). An entry is not claimed
     * while an earlier entry of its process waits for a retry or is leased, so a process gets its start and its
     * messages in order; a dead earlier entry no longer holds it up.
     */
    claim: async (limit: number, leaseMs = 60_000): Promise<OutboxEntry[]> =>
      (
        await db.any(sql.type(Row)`
        WITH claimed AS (
          UPDATE process_outbox o SET leased_until = now() + ${leaseMs} * interval '1 millisecond'
          WHERE o.id IN (
            SELECT c.id FROM process_outbox c
            WHERE c.dead_at IS NULL AND c.next_attempt_at <= now() AND (c.leased_until IS NULL OR c.leased_until <= now())
              AND NOT EXISTS (
                SELECT 1 FROM process_outbox p
                WHERE p.process_id = c.process_id AND p.id < c.id AND p.dead_at IS NULL
                  AND (p.next_attempt_at > now() OR p.leased_until > now()))
            ORDER BY c.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.action, o.kind, o.process_id, o.tenant_id, o.topic, o.payload, o.trace_context)
        SELECT id, action, kind, process_id AS "processId", tenant_id AS "tenantId", topic, payload, trace_context AS "traceContext"
        FROM claimed ORDER BY id`)
      ).map(toEntry),

    // unscoped: the dispatcher carries out the entries of every tenant, by id.
    remove: (id: number) => db.query(sql.unsafe`DELETE FROM process_outbox WHERE id = ${id}`),

    /** Gives a claimed entry back, due at once (it was not tried: an earlier entry of its process failed). */
    // unscoped: the dispatcher carries out the entries of every tenant, by id.
    release: (id: number) => db.query(sql.unsafe`UPDATE process_outbox SET leased_until = NULL WHERE id = ${id}`),

    /**
     * Records a failed attempt: the entry is due again after `initialMs × 2^(attempts − 1)`, at most `maxMs`,
     * and dead (kept, not claimed, listed for operators) once it has failed `maxAttempts` times.
     */
    // unscoped: the dispatcher carries out the entries of every tenant, by id.
    fail: (id: number, error: string, retry: OutboxRetry) =>
      db.maybeOne(sql.type(z.object({ attempts: z.number(), dead: z.boolean() }))`
        UPDATE process_outbox SET
          attempts = attempts + 1,
          last_error = ${error.slice(0, 1000)},
          leased_until = NULL,
          next_attempt_at = now() + least(${retry.maxMs}::float8, ${retry.initialMs}::float8 * power(2, attempts)) * interval '1 millisecond',
          dead_at = CASE WHEN attempts + 1 >= ${retry.maxAttempts} THEN now() END
        WHERE id = ${id}
        RETURNING attempts, dead_at IS NOT NULL AS dead`),

    /** Entries for operators, oldest first: `dead` ones (out of attempts) or `pending` ones (waiting or retrying). */
    // unscoped: the service-wide operator view (operators only) of the whole outbox, across tenants.
    list: async (state: 'dead' | 'pending', limit: number, afterId = 0) => [
      ...(await db.any(sql.type(OperatorRow)`
        SELECT ${OPERATOR_COLUMNS} FROM process_outbox
        WHERE ${state === 'dead' ? sql.fragment`dead_at IS NOT NULL` : sql.fragment`dead_at IS NULL`} AND id > ${afterId}
        ORDER BY id LIMIT ${limit}`)),
    ],

    /** Makes an entry due at once with its attempts reset (a dead one is pending again); null if there is none. */
    // unscoped: a service-wide operator (operators only) retries an entry of any tenant, by id.
    retry: (id: number) =>
      db.maybeOne(sql.type(OperatorRow)`
        UPDATE process_outbox SET attempts = 0, dead_at = NULL, next_attempt_at = now(), leased_until = NULL
        WHERE id = ${id}
        RETURNING ${OPERATOR_COLUMNS}`),
  };
}

/** How the dispatcher retries an entry the engine refused. */
export interface OutboxRetry {
  initialMs: number;
  maxMs: number;
  maxAttempts: number;
}

const OPERATOR_COLUMNS = sql.fragment`
  id, action, kind, process_id AS "processId", tenant_id AS "tenantId", topic, attempts, last_error AS "lastError",
  next_attempt_at AS "nextAttemptAt", dead_at AS "deadAt", created_at AS "createdAt"`;

/** An entry as operators see it (without its payload, which may carry personal data). */
const OperatorRow = Row.omit({ payload: true, traceContext: true }).extend({
  attempts: z.number(),
  lastError: z.string().nullable(),
  nextAttemptAt: isoTimestamp,
  deadAt: nullableTimestamp,
  createdAt: isoTimestamp,
});
export type OutboxOperatorRow = z.infer<typeof OperatorRow>;
