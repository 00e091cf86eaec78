// An in-memory TupleReader for the engine's unit tests: it answers like the database reader (batched look-ups by
// objects and by users) and counts its calls, so a test can assert how many look-ups a query made.
import { parseTupleKey } from '../../lib/fga/tuples.ts';
import type { Tuple, TupleKey, TupleReader, UserRef } from '../../lib/fga/types.ts';

export class MemoryReader implements TupleReader {
  readonly tuples: Tuple[];
  calls = { byObjects: 0, byUsers: 0 };
  /** Each call's arguments, in order. */
  log: {
    method: 'byObjects' | 'byUsers';
    objectType: string;
    ids?: readonly string[];
    relations?: readonly string[];
    relation?: string;
    users?: readonly UserRef[];
  }[] = [];

  constructor(keys: readonly (TupleKey | string)[] = []) {
    this.tuples = keys.map((k) => parseTupleKey(typeof k === 'string' ? keyOf(k) : k));
  }

  get totalCalls() {
    return this.calls.byObjects + this.calls.byUsers;
  }

  async byObjects(objectType: string, objectIds: readonly string[], relations: readonly string[]): Promise<Tuple[]> {
    this.calls.byObjects++;
    this.log.push({ method: 'byObjects', objectType, ids: objectIds, relations });
    return this.tuples.filter((t) => t.objectType === objectType && objectIds.includes(t.objectId) && relations.includes(t.relation));
  }

  async byUsers(objectType: string, relation: string, users: readonly UserRef[], limit?: number): Promise<Tuple[]> {
    this.calls.byUsers++;
    this.log.push({ method: 'byUsers', objectType, relation, users });
    const out = this.tuples.filter(
      (t) =>
        t.objectType === objectType &&
        t.relation === relation &&
        users.some((u) => u.type === t.userType && u.id === t.userId && u.relation === t.userRelation),
    );
    return limit === undefined ? out : out.slice(0, limit);
  }
}

/** `document:1#viewer@user:anne` → a tuple key. */
export function keyOf(text: string): TupleKey {
  const at = text.indexOf('@');
  const hash = text.lastIndexOf('#', at);
  return { object: text.slice(0, hash), relation: text.slice(hash + 1, at), user: text.slice(at + 1) };
}
