// The process outbox as operators see it: entries the engine refused until they ran out of attempts (dead) or
// that wait for a retry (pending), and a retry that makes an entry due at once. Service-wide, so operators only
// (principals of the bootstrap organization, not limited to some tenants), like signing key rotation.
import type { DatabasePool } from 'slonik';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createProcessOutboxQueries, type OutboxOperatorRow } from '../../../../db/processes/outbox.ts';
import { record, type Caller } from '../../../access/caller.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { encodeCursor, keysetPage } from '../../../common/schemas.ts';

export type ProcessOutboxService = ReturnType<typeof createProcessOutboxService>;

const entryCursor = (last: OutboxOperatorRow) => encodeCursor(`i${last.id}`);

export function createProcessOutboxService(pool: DatabasePool) {
  /** The operator organization, if the caller is one of its principals (not limited to some tenants); 403 otherwise. */
  const operatorsOnly = async ({ principal }: Caller) => {
    const operators = await createServiceStateQueries(pool).findBootstrap();
    if (!operators || !principal.organizationIds.includes(operators.organizationId) || principal.tenantIds !== null) {
      throw new ApiError(403, 'process_outbox.operator_only', 'Only principals of the operator organization may see or retry process outbox entries.');
    }
    return operators.organizationId;
  };
  const queries = createProcessOutboxQueries(pool);
  return {
    list: async (caller: Caller, query: { state: 'dead' | 'pending'; limit: number; cursor?: number }) => {
      await operatorsOnly(caller);
      const rows = await queries.list(query.state, query.limit + 1, query.cursor ?? 0);
      return keysetPage('entries', rows, query.limit, entryCursor);
    },
    retry: async (caller: Caller, id: number) => {
      const organizationId = await operatorsOnly(caller);
      return pool.transaction(async (trx) => {
        const entry = await orNotFound(createProcessOutboxQueries(trx).retry(id), 'process_outbox_entry', String(id));
        // Audited where operators read: the operator organization's log.
        await record(trx, caller, {
          action: 'process_outbox.retry',
          resource: { type: 'process_outbox_entry', id: String(entry.id) },
          scope: { organizationId, tenantId: null, environmentId: null },
          after: { attempts: entry.attempts, deadAt: entry.deadAt, nextAttemptAt: entry.nextAttemptAt },
          event: {
            type: 'process_outbox.entry_retried',
            data: { entry: { id: entry.id, action: entry.action, kind: entry.kind, processId: entry.processId } },
          },
        });
        return entry;
      });
    },
  };
}
