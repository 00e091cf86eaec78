// The process outbox as operators see it: entries the engine refused until they ran out of attempts (dead) or
// that wait for a retry (pending), and a retry that makes an entry due at once. Service-wide, so operators only
// (principals of the bootstrap organization, not limited to some tenants), like signing key rotation.
import type { DatabasePool } from 'slonik';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createProcessOutboxQueries, type OutboxOperatorRow } from '../../../../db/processes/outbox.ts';
import type { Caller } from '../../../access/caller.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { encodeCursor, keysetPage } from '../../../common/schemas.ts';

export type ProcessOutboxService = ReturnType<typeof createProcessOutboxService>;

export const entryCursor = (last: OutboxOperatorRow) => encodeCursor(`i${last.id}`);

export function createProcessOutboxService(pool: DatabasePool) {
  const operatorsOnly = async ({ principal }: Caller) => {
    const operators = await createServiceStateQueries(pool).findBootstrap();
    if (!operators || !principal.organizationIds.includes(operators.organizationId) || principal.tenantIds !== null) {
      throw new ApiError(403, 'process_outbox.operator_only', 'Only principals of the operator organization may see or retry process outbox entries.');
    }
  };
  const queries = createProcessOutboxQueries(pool);
  return {
    list: async (caller: Caller, query: { state: 'dead' | 'pending'; limit: number; cursor?: number }) => {
      await operatorsOnly(caller);
      const rows = await queries.list(query.state, query.limit + 1, query.cursor ?? 0);
      return keysetPage('entries', rows, query.limit, entryCursor);
    },
    retry: async (caller: Caller, id: number) => {
      await operatorsOnly(caller);
      return orNotFound(queries.retry(id), 'process_outbox_entry', String(id));
    },
  };
}
