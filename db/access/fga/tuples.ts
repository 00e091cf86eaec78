// The tuples of one environment's FGA store and their change log: every write and delete is logged by the same
// statement that makes it, so the change log never disagrees with the tuples.
import { sql, type CommonQueryMethods } from 'slonik';
import type { Tuple, UserRef } from '../../../lib/fga/types.ts';
import { toTuple, tupleColumns, type TupleRow } from './rows.ts';

/** A tuple's identity, without its condition. */
export type TupleIdentity = Pick<Tuple, 'objectType' | 'objectId' | 'relation' | 'userType' | 'userId' | 'userRelation'>;

/** Read's partial tuple key: an object type (alone or with an id), a relation, a user. */
export interface TupleFilter {
  objectType?: string | undefined;
  objectId?: string | undefined;
  relation?: string | undefined;
  user?: UserRef | undefined;
}

const columns = tupleColumns;
const texts = (values: (string | null)[]) => sql.array(values, 'text');

/** The identities as one `unnest(…) AS k(ot, oid, rel, ut, uid, ur)` row source. */
const keysOf = (tuples: readonly TupleIdentity[]) => sql.fragment`unnest(
  ${texts(tuples.map((t) => t.objectType))}, ${texts(tuples.map((t) => t.objectId))}, ${texts(tuples.map((t) => t.relation))},
  ${texts(tuples.map((t) => t.userType))}, ${texts(tuples.map((t) => t.userId))}, ${texts(tuples.map((t) => t.userRelation))}) AS k(ot, oid, rel, ut, uid, ur)`;

const matches = sql.fragment`t.object_type = k.ot AND t.object_id = k.oid AND t.relation = k.rel AND t.user_type = k.ut AND t.user_id = k.uid AND t.user_relation = k.ur`;

const logged = (operation: 'write' | 'delete', rows: string) => sql.fragment`
  INSERT INTO fga_changes (environment_id, operation, object_type, object_id, relation, user_type, user_id, user_relation, condition_name, condition_context)
  SELECT environment_id, ${operation}, object_type, object_id, relation, user_type, user_id, user_relation, condition_name, condition_context
  FROM ${sql.identifier([rows])}`;

export function createFgaTupleQueries(db: CommonQueryMethods, environmentId: string) {
  const rows = async (query: ReturnType<typeof sql.unsafe>) => ((await db.any(query)) as readonly TupleRow[]).map(toTuple);
  return {
    /** Inserts the tuples not stored yet, logging each; answers those it inserted (a stored one is left as it is). */
    insert: (tuples: readonly Tuple[]) =>
      rows(sql.unsafe`
        WITH ins AS (
          INSERT INTO fga_tuples AS t (environment_id, object_type, object_id, relation, user_type, user_id, user_relation, condition_name, condition_context)
          SELECT ${environmentId}, k.ot, k.oid, k.rel, k.ut, k.uid, k.ur, k.cn, k.cc::jsonb
          FROM unnest(
            ${texts(tuples.map((t) => t.objectType))}, ${texts(tuples.map((t) => t.objectId))}, ${texts(tuples.map((t) => t.relation))},
            ${texts(tuples.map((t) => t.userType))}, ${texts(tuples.map((t) => t.userId))}, ${texts(tuples.map((t) => t.userRelation))},
            ${texts(tuples.map((t) => t.condition?.name ?? null))}, ${texts(tuples.map((t) => (t.condition ? JSON.stringify(t.condition.context) : null)))}
          ) AS k(ot, oid, rel, ut, uid, ur, cn, cc)
          ON CONFLICT DO NOTHING
          RETURNING *
        ), log AS (${logged('write', 'ins')})
        SELECT ${columns} FROM ins`),

    /** Deletes the tuples that are stored, logging each; answers those it deleted. */
    delete: (tuples: readonly TupleIdentity[]) =>
      rows(sql.unsafe`
        WITH del AS (
          DELETE FROM fga_tuples t USING ${keysOf(tuples)} WHERE t.environment_id = ${environmentId} AND ${matches} RETURNING t.*
        ), log AS (${logged('delete', 'del')})
        SELECT ${columns} FROM del`),

    /** The stored tuples among these identities. */
    find: (tuples: readonly TupleIdentity[]) =>
      rows(sql.unsafe`SELECT ${columns} FROM fga_tuples t, ${keysOf(tuples)} WHERE t.environment_id = ${environmentId} AND ${matches}`),

    /** Tuples matching the filter in primary key order, after `after` (a page's last tuple). */
    read: (filter: TupleFilter, after: TupleIdentity | null, limit: number) => {
      const where = [
        filter.objectType !== undefined && sql.fragment`AND object_type = ${filter.objectType}`,
        filter.objectId !== undefined && sql.fragment`AND object_id = ${filter.objectId}`,
        filter.relation !== undefined && sql.fragment`AND relation = ${filter.relation}`,
        filter.user !== undefined &&
          sql.fragment`AND user_type = ${filter.user.type} AND user_id = ${filter.user.id} AND user_relation = ${filter.user.relation}`,
        after !== null &&
          sql.fragment`AND (object_type, object_id, relation, user_type, user_id, user_relation) >
            (${after.objectType}, ${after.objectId}, ${after.relation}, ${after.userType}, ${after.userId}, ${after.userRelation})`,
      ].filter((w) => w !== false);
      return db
        .any(
          sql.unsafe`
            SELECT ${columns}, inserted_at AS "insertedAt" FROM fga_tuples WHERE environment_id = ${environmentId} ${where.length ? sql.join(where, sql.fragment` `) : sql.fragment``}
            ORDER BY object_type, object_id, relation, user_type, user_id, user_relation LIMIT ${limit}`,
        )
        .then((found) => (found as readonly (TupleRow & { insertedAt: string })[]).map((r) => ({ tuple: toTuple(r), insertedAt: r.insertedAt })));
    },
  };
}
