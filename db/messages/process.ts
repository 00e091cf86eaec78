// What the `message-send` process reads and writes of the message it was started for (by id).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { MessageRecord } from './rows.ts';
import { messageColumns } from './queries.ts';

const Locked = MessageRecord.extend({ tenantId: z.uuid(), sealedContent: z.string().nullable() });
export type LockedMessage = z.infer<typeof Locked>;

// unscoped: the message-send process acts on the one message it was started for, by its id.
export function createMessageProcessQueries(db: CommonQueryMethods) {
  return {
    // unscoped: the process's own message, read before an attempt (no lock: the vendor call is made outside any transaction).
    find: (id: string) =>
      db.maybeOne(sql.type(Locked)`
        SELECT ${messageColumns}, e.tenant_id AS "tenantId", m.sealed_content AS "sealedContent"
        FROM messages m JOIN environments e ON e.id = m.environment_id WHERE m.id = ${id}`),

    // unscoped: the process's own message, locked for the attempt's bookkeeping.
    lock: (id: string) =>
      db.maybeOne(sql.type(Locked)`
        SELECT ${messageColumns}, e.tenant_id AS "tenantId", m.sealed_content AS "sealedContent"
        FROM messages m JOIN environments e ON e.id = m.environment_id WHERE m.id = ${id} FOR UPDATE OF m`),

    // unscoped: the process's own message.
    recordFailure: (id: string, provider: string, error: string) =>
      db.one(sql.type(MessageRecord)`
        UPDATE messages AS m SET attempts = m.attempts + 1, provider = ${provider}, last_error = ${error}, updated_at = now()
        WHERE m.id = ${id} RETURNING ${messageColumns}`),

    // unscoped: the process's own message; its sealed content is dropped once sent.
    markSent: (id: string, provider: string, providerMessageId: string) =>
      db.one(sql.type(MessageRecord)`
        UPDATE messages AS m SET status = 'sent', attempts = m.attempts + 1, provider = ${provider}, provider_message_id = ${providerMessageId},
          sealed_content = NULL, sent_at = now(), updated_at = now()
        WHERE m.id = ${id} RETURNING ${messageColumns}`),

    // unscoped: the process's own message, given up: its sealed content is dropped.
    markFailed: (id: string) =>
      db.one(sql.type(MessageRecord)`
        UPDATE messages AS m SET status = 'failed', sealed_content = NULL, failed_at = now(), updated_at = now()
        WHERE m.id = ${id} RETURNING ${messageColumns}`),
  };
}
