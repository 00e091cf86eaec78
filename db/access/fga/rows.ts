// Shapes of the FGA store: tuples as stored (split into their parts) and as OpenFGA's API writes them.
import { sql } from 'slonik';
import type { Tuple, TupleKey } from '../../../lib/fga/types.ts';

/** A stored tuple's columns, as the reader and the read queries select them (no zod on the check path). */
export interface TupleRow {
  objectType: string;
  objectId: string;
  relation: string;
  userType: string;
  userId: string;
  userRelation: string;
  conditionName: string | null;
  conditionContext: Record<string, unknown> | null;
}

export const tupleColumns = sql.fragment`object_type AS "objectType", object_id AS "objectId", relation, user_type AS "userType", user_id AS "userId",
  user_relation AS "userRelation", condition_name AS "conditionName", condition_context AS "conditionContext"`;

export const toTuple = (r: TupleRow): Tuple => ({
  objectType: r.objectType,
  objectId: r.objectId,
  relation: r.relation,
  userType: r.userType,
  userId: r.userId,
  userRelation: r.userRelation,
  condition: r.conditionName === null ? null : { name: r.conditionName, context: r.conditionContext ?? {} },
});

/** `type:id#relation@type:id[#relation]` parts as OpenFGA's TupleKey, with its condition when it has one. */
export function toTupleKey(t: Tuple): TupleKey {
  const key: TupleKey = {
    user: `${t.userType}:${t.userId}${t.userRelation ? `#${t.userRelation}` : ''}`,
    relation: t.relation,
    object: `${t.objectType}:${t.objectId}`,
  };
  if (t.condition)
    key.condition = Object.keys(t.condition.context).length ? { name: t.condition.name, context: t.condition.context } : { name: t.condition.name };
  return key;
}

/** The tuple's identity (no condition), as written in messages and events: `document:1#viewer@user:anne`. */
export const tupleName = (t: Pick<Tuple, 'objectType' | 'objectId' | 'relation' | 'userType' | 'userId' | 'userRelation'>) =>
  `${t.objectType}:${t.objectId}#${t.relation}@${t.userType}:${t.userId}${t.userRelation ? `#${t.userRelation}` : ''}`;
