// The change log of one environment's tuples (OpenFGA's ReadChanges), oldest first: in `(tx_id, id)` order and
// only below the commit horizon, as the event stream reads (db/events/events/queries.ts explains why), so a page's
// last change is a position no later commit can sort before.
import { sql, type CommonQueryMethods } from 'slonik';
import type { Tuple } from '../../../lib/fga/types.ts';
import { toTuple, tupleColumns, type TupleRow } from './rows.ts';

/** A position in the change log: after this change. */
export interface ChangePosition {
  txId: string;
  id: number;
}

export interface TupleChange extends ChangePosition {
  operation: 'write' | 'delete';
  tuple: Tuple;
  changedAt: string;
}

export function createFgaChangeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Changes after the change `after` (a page's last), of one object type and from a time when given. */
    page: async (
      filter: { objectType?: string | undefined; startTime?: string | undefined },
      after: ChangePosition | null,
      limit: number,
    ): Promise<TupleChange[]> => {
      const where = [
        filter.objectType !== undefined && sql.fragment`AND object_type = ${filter.objectType}`,
        filter.startTime !== undefined && sql.fragment`AND changed_at >= ${filter.startTime}::timestamptz`,
        after !== null && sql.fragment`AND (tx_id, id) > (${after.txId}::xid8, ${after.id}::int8)`,
      ].filter((w) => w !== false);
      const rows = (await db.any(sql.unsafe`
        SELECT id, tx_id::text AS "txId", operation, ${tupleColumns}, changed_at AS "changedAt" FROM fga_changes
        WHERE environment_id = ${environmentId} ${where.length ? sql.join(where, sql.fragment` `) : sql.fragment``} AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY tx_id, id LIMIT ${limit}`)) as readonly (TupleRow & {
        id: number;
        txId: string;
        operation: 'write' | 'delete';
        changedAt: string;
      })[];
      return rows.map((r) => ({ id: Number(r.id), txId: r.txId, operation: r.operation, tuple: toTuple(r), changedAt: r.changedAt }));
    },
  };
}
