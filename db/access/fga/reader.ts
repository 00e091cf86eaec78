// The engine's TupleReader over one environment's tuples: each call is one statement (`= ANY(array)`), served by
// the primary key (by objects) or the reverse index (by users). Rows skip zod: this is the check hot path.
import { sql, type CommonQueryMethods } from 'slonik';
import type { Tuple, TupleReader, UserRef } from '../../../lib/fga/types.ts';
import { toTuple, tupleColumns, type TupleRow } from './rows.ts';

export function createFgaTupleReader(db: CommonQueryMethods, environmentId: string): TupleReader {
  const rows = async (query: ReturnType<typeof sql.unsafe>): Promise<Tuple[]> => ((await db.any(query)) as readonly TupleRow[]).map(toTuple);
  return {
    byObjects: (objectType, objectIds, relations) =>
      objectIds.length === 0 || relations.length === 0
        ? Promise.resolve([])
        : rows(sql.unsafe`
            SELECT ${tupleColumns} FROM fga_tuples
            WHERE environment_id = ${environmentId} AND object_type = ${objectType}
              AND object_id = ANY(${sql.array([...objectIds], 'text')}) AND relation = ANY(${sql.array([...relations], 'text')})`),

    byUsers: (objectType, relation, users: readonly UserRef[], limit) =>
      users.length === 0
        ? Promise.resolve([])
        : rows(sql.unsafe`
            SELECT ${tupleColumns} FROM fga_tuples
            WHERE environment_id = ${environmentId} AND object_type = ${objectType} AND relation = ${relation}
              AND (user_type, user_id, user_relation) IN (
                SELECT * FROM unnest(${sql.array(
                  users.map((u) => u.type),
                  'text',
                )}, ${sql.array(
                  users.map((u) => u.id),
                  'text',
                )},
                  ${sql.array(
                    users.map((u) => u.relation),
                    'text',
                  )}))
            ${limit === undefined ? sql.fragment`` : sql.fragment`LIMIT ${limit}`}`),
  };
}
