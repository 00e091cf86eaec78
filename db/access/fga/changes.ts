// The change log of one environment's tuples (OpenFGA's ReadChanges), oldest first.
import { sql, type CommonQueryMethods } from 'slonik';
import type { Tuple } from '../../../lib/fga/types.ts';
import { toTuple, tupleColumns, type TupleRow } from './rows.ts';

export interface TupleChange {
  id: number;
  operation: 'write' | 'delete';
  tuple: Tuple;
  changedAt: string;
}

export function createFgaChangeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Changes after the change `after` (a page's last), of one object type and from a time when given. */
    page: async (filter: { objectType?: string | undefined; startTime?: string | undefined }, after: number | null, limit: number): Promise<TupleChange[]> => {
      const where = [
        filter.objectType !== undefined && sql.fragment`AND object_type = ${filter.objectType}`,
        filter.startTime !== undefined && sql.fragment`AND changed_at >= ${filter.startTime}::timestamptz`,
        after !== null && sql.fragment`AND id > ${after}`,
      ].filter((w) => w !== false);
      const rows = (await db.any(sql.unsafe`
        SELECT id, operation, ${tupleColumns}, changed_at AS "changedAt" FROM fga_changes
        WHERE environment_id = ${environmentId} ${where.length ? sql.join(where, sql.fragment` `) : sql.fragment``} ORDER BY id LIMIT ${limit}`)) as readonly (TupleRow & {
        id: number;
        operation: 'write' | 'delete';
        changedAt: string;
      })[];
      return rows.map((r) => ({ id: Number(r.id), operation: r.operation, tuple: toTuple(r), changedAt: r.changedAt }));
    },
  };
}
