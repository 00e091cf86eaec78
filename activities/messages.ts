// attemptMessage: one attempt of the message-send process. It re-reads the message and acts only while it is queued,
// sends outside any transaction (the vendor may be slow), then records the outcome under the row's lock with its
// event. A message is sent at least once: an attempt whose send succeeded but whose bookkeeping was lost is made again.
import type { DatabasePool } from 'slonik';
import { decrypt } from '../lib/crypto.ts';
import { createMessageProcessQueries } from '../db/messages/process.ts';
import type { MessageRecord } from '../db/messages/rows.ts';
import { recordChange } from '../db/shared/changes.ts';
import type { Activities, MessageAttemptResult } from '../workflows/activities.ts';
import { MessageVendorFailure, sendThrough, type SealedContent, type VendorDeps } from './message-vendors.ts';

export interface MessageDeps extends VendorDeps {
  pool: DatabasePool;
}

const ACTOR = { type: 'system' as const, id: 'message-send' };

export function createMessageActivities(deps: MessageDeps): Pick<Activities, 'attemptMessage'> {
  const { pool } = deps;
  return {
    attemptMessage: async ({ messageId, provider, lastAttempt, next }): Promise<MessageAttemptResult> => {
      const queued = await createMessageProcessQueries(pool).find(messageId);
      if (!queued || queued.status !== 'queued' || !queued.sealedContent) return { outcome: 'settled' };
      const content = JSON.parse(decrypt(deps.masterKey, queued.sealedContent)) as SealedContent;
      const sent = await sendThrough(pool, deps, queued.environmentId, provider, queued.recipient, content).then(
        (result) => ({ messageId: result.messageId, failure: null }),
        (error: unknown) => {
          if (error instanceof MessageVendorFailure) return { messageId: null, failure: error };
          throw error;
        },
      );
      return pool.transaction(async (trx) => {
        const queries = createMessageProcessQueries(trx);
        const row = await queries.lock(messageId);
        if (!row || row.status !== 'queued') return { outcome: 'settled' };
        const scope = { tenantId: row.tenantId, environmentId: row.environmentId };
        const record = (action: string, message: MessageRecord, event: Parameters<typeof recordChange>[1]['event']) =>
          recordChange(trx, { actor: ACTOR, action, resource: { type: 'message', id: messageId }, scope, after: { status: message.status }, event });
        if (sent.messageId !== null) {
          const message = await queries.markSent(messageId, provider, sent.messageId);
          await record('message.send', message, { type: 'message.sent', data: { message } });
          return { outcome: 'sent' };
        }
        const error = sent.failure!.message.slice(0, 500);
        const message = await queries.recordFailure(messageId, provider, error);
        if (sent.failure!.transient && !lastAttempt) return { outcome: 'retry', error };
        if (next) {
          await record('message.fail_over', message, { type: 'message.failed_over', data: { message, from: provider, to: next, error } });
          return { outcome: 'next', error };
        }
        const failed = await queries.markFailed(messageId);
        await record('message.fail', failed, { type: 'message.failed', data: { message: failed } });
        return { outcome: 'failed', error };
      });
    },
  };
}
