// Process starts and signals, recorded with the business change that calls for them (see 0003 migration).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Entry = z.object({
  id: z.coerce.number(),
  action: z.enum(['start', 'signal']),
  kind: z.string().nullable(),
  processId: z.string(),
  tenantId: z.uuid().nullable(),
  topic: z.string().nullable(),
  payload: z.unknown(),
});
export type OutboxEntry = z.infer<typeof Entry>;

export function createProcessOutboxQueries(db: CommonQueryMethods) {
  return {
    /** Starts `processId` after commit; starting an id that exists is a no-op. */
    enqueueStart: (p: { kind: string; processId: string; tenantId: string | null; input: Record<string, unknown> }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload)
        VALUES ('start', ${p.kind}, ${p.processId}, ${p.tenantId}, ${sql.jsonb(p.input as never)})`),

    /** Sends `payload` on `topic` to the process after commit (after any start enqueued before it). */
    enqueueSignal: (p: { processId: string; topic: string; payload: Record<string, unknown> }) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, process_id, topic, payload) VALUES ('signal', ${p.processId}, ${p.topic}, ${sql.jsonb(p.payload as never)})`),

    /** Claims the oldest entries; the caller deletes each once done, inside the same transaction. */
    claim: async (limit: number) => [
      ...(await db.any(sql.type(Entry)`
        SELECT id, action, kind, process_id AS "processId", tenant_id AS "tenantId", topic, payload
        FROM process_outbox ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`)),
    ],

    remove: (id: number) => db.query(sql.unsafe`DELETE FROM process_outbox WHERE id = ${id}`),
  };
}
