// Process starts and signals, recorded with the business change that calls for them (see 0003 migration): the one
// way the code starts or signals a process. Both are typed by process kind (and topic): the input and each topic's
// message are those the process's logic in workflows/ declares. The dispatcher carries the entries out.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { MessageOf, ProcessInput, ProcessKind, TopicOf } from '../../workflows/port.ts';

/** The id of the process of `kind` for one entity, `<kind>:<entityId>`: an idempotency key (no PII in it). */
export const processId = (kind: ProcessKind, entityId: string) => `${kind}:${entityId}`;

/** A start to carry out, typed by kind. */
export type OutboxStart = {
  [K in ProcessKind]: { id: number; action: 'start'; kind: K; processId: string; tenantId: string | null; input: ProcessInput<K> };
}[ProcessKind];

/** A signal to carry out, typed by kind and topic (kinds without topics have none). */
export type OutboxSignal = {
  [K in ProcessKind]: { [T in TopicOf<K>]: { id: number; action: 'signal'; kind: K; processId: string; topic: T; payload: MessageOf<K, T> } }[TopicOf<K>];
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
});

/** Rows are written only by enqueueStart and enqueueSignal below, so they hold the types those took. */
function toEntry(row: z.infer<typeof Row>): OutboxEntry {
  // Signals enqueued before their kind was recorded: the kind is the prefix of the process id.
  const kind = row.kind ?? row.processId.slice(0, row.processId.indexOf(':'));
  return (
    row.action === 'start'
      ? { id: row.id, action: 'start', kind, processId: row.processId, tenantId: row.tenantId, input: row.payload }
      : { id: row.id, action: 'signal', kind, processId: row.processId, topic: row.topic, payload: row.payload }
  ) as OutboxEntry;
}

export function createProcessOutboxQueries(db: CommonQueryMethods) {
  return {
    /** Starts the process of `kind` for `entityId` after commit; starting an id that exists is a no-op. */
    enqueueStart: <K extends ProcessKind>(p: { kind: K; entityId: string; tenantId: string | null; input: ProcessInput<K> }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload)
        VALUES ('start', ${p.kind}, ${processId(p.kind, p.entityId)}, ${p.tenantId}, ${sql.jsonb(p.input as never)})`),

    /** Sends `payload` on `topic` to the process of `kind` for `entityId` after commit (after any start enqueued before it). */
    enqueueSignal: <K extends ProcessKind, T extends TopicOf<K>>(p: { kind: K; entityId: string; topic: T; payload: MessageOf<K, T> }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, topic, payload)
        VALUES ('signal', ${p.kind}, ${processId(p.kind, p.entityId)}, ${p.topic}, ${sql.jsonb(p.payload as never)})`),

    /** Claims the oldest entries; the caller deletes each once done, inside the same transaction. */
    claim: async (limit: number): Promise<OutboxEntry[]> =>
      (
        await db.any(sql.type(Row)`
        SELECT id, action, kind, process_id AS "processId", tenant_id AS "tenantId", topic, payload
        FROM process_outbox ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`)
      ).map(toEntry),

    remove: (id: number) => db.query(sql.unsafe`DELETE FROM process_outbox WHERE id = ${id}`),
  };
}
