// The outbox entries of an environment's `billing-sync` process (started and signalled like every process, through
// the outbox: db/processes/outbox.ts).
import { sql, type CommonQueryMethods } from 'slonik';
import type { BillingSyncInput } from '../../lib/processes/contracts.ts';
import { createProcessOutboxQueries } from '../processes/outbox.ts';

export const BILLING_SYNC_KIND = 'billing-sync';

/** Starts the process (a no-op while it runs) and asks it to sync now. */
export async function requestBillingSync(db: CommonQueryMethods, tenantId: string, input: BillingSyncInput, requestedAt: number) {
  const outbox = createProcessOutboxQueries(db);
  await outbox.enqueueStart({ kind: BILLING_SYNC_KIND, entityId: input.environmentId, tenantId, input });
  await outbox.enqueueSignal({ kind: BILLING_SYNC_KIND, entityId: input.environmentId, topic: 'billing-sync', payload: { requestedAt } });
}

/** The next run, due after the interval, unless a start of it already waits. */
// unscoped: the billing-sync process of one environment starts its own next run (its tenant read from the environment).
export const enqueueNextBillingSync = (db: CommonQueryMethods, input: BillingSyncInput) =>
  db.query(sql.unsafe`
    INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload, next_attempt_at)
    SELECT 'start', ${BILLING_SYNC_KIND}, ${`${BILLING_SYNC_KIND}:${input.environmentId}`}, e.tenant_id, ${sql.jsonb(input as never)},
      now() + ${input.intervalMs} * interval '1 millisecond'
    FROM environments e WHERE e.id = ${input.environmentId}
      AND NOT EXISTS (SELECT 1 FROM process_outbox o WHERE o.process_id = ${`${BILLING_SYNC_KIND}:${input.environmentId}`} AND o.dead_at IS NULL)`);
