// One request's view of the tuples: the reader with the contextual tuples laid over it, and a loader that gathers the
// look-ups a step of the resolution makes (every pending object of a type and relation) into one reader call, and
// keeps what it read for the rest of the request.
import type { CompiledModel } from './model.ts';
import { checkTuple, parseObject, parseUser } from './tuples.ts';
import { FGA_LIMITS, FgaError, type QueryOptions, type Tuple, type TupleReader, type UserRef } from './types.ts';

/** A reader that also answers the request's contextual tuples. */
export function withContextualTuples(reader: TupleReader, tuples: readonly Tuple[]): TupleReader {
  if (tuples.length === 0) return reader;
  return {
    async byObjects(objectType, objectIds, relations) {
      const stored = await reader.byObjects(objectType, objectIds, relations);
      const extra = tuples.filter((t) => t.objectType === objectType && objectIds.includes(t.objectId) && relations.includes(t.relation));
      return extra.length > 0 ? stored.concat(extra) : stored;
    },
    async byUsers(objectType, relation, users, limit) {
      const stored = await reader.byUsers(objectType, relation, users, limit);
      const extra = tuples.filter(
        (t) =>
          t.objectType === objectType &&
          t.relation === relation &&
          users.some((u) => u.type === t.userType && u.id === t.userId && u.relation === t.userRelation),
      );
      return extra.length > 0 ? stored.concat(extra) : stored;
    },
  };
}

/** Validates and splits the request's contextual tuples. */
export function contextualTuples(model: CompiledModel, options: QueryOptions): Tuple[] {
  const keys = options.contextualTuples ?? [];
  if (keys.length > FGA_LIMITS.contextualTuples) {
    throw new FgaError('validation_error', `At most ${FGA_LIMITS.contextualTuples} contextual tuples are allowed, not ${keys.length}.`);
  }
  return keys.map((key) => checkTuple(model, key));
}

/** The look-ups pending for one object type: each `id#relation` and who waits for it. */
interface Batch {
  ids: Set<string>;
  relations: Set<string>;
  waiting: Map<string, { resolve: (tuples: Tuple[]) => void; reject: (error: unknown) => void }>;
}

export class TupleLoader {
  readonly reader: TupleReader;
  private readonly cache = new Map<string, Promise<Tuple[]>>();
  private pending = new Map<string, Batch>();
  private scheduled = false;
  /** Reader calls made (for tests and metrics). */
  calls = 0;
  /** Set when the request has its answer: branches still running read nothing more. */
  done = false;

  constructor(reader: TupleReader) {
    this.reader = reader;
  }

  /** The tuples of `type:id#relation`, read together with the other look-ups of the type pending at this step. */
  tuples(type: string, id: string, relation: string): Promise<Tuple[]> {
    const key = `${id}#${relation}`;
    const cacheKey = `${type}:${key}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    if (this.done) return Promise.resolve([]);
    let batch = this.pending.get(type);
    if (!batch) {
      batch = { ids: new Set(), relations: new Set(), waiting: new Map() };
      this.pending.set(type, batch);
    }
    const b = batch;
    const promise = new Promise<Tuple[]>((resolve, reject) => {
      b.ids.add(id);
      b.relations.add(relation);
      b.waiting.set(key, { resolve, reject });
    });
    this.cache.set(cacheKey, promise);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the microtasks queued now have run: every branch that is about to read has asked by then.
      process.nextTick(() => this.flush());
    }
    return promise;
  }

  private flush() {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    for (const [type, batch] of pending) {
      this.calls++;
      this.reader.byObjects(type, [...batch.ids], [...batch.relations]).then(
        (tuples) => {
          const byKey = new Map<string, Tuple[]>();
          for (const t of tuples) {
            const key = `${t.objectId}#${t.relation}`;
            const list = byKey.get(key);
            if (list) list.push(t);
            else byKey.set(key, [t]);
          }
          for (const [key, waiter] of batch.waiting) {
            const found = byKey.get(key) ?? [];
            // Look-ups of the same step that were read together (another id × relation) are kept for later.
            byKey.delete(key);
            waiter.resolve(found);
          }
          for (const [key, list] of byKey) {
            const cacheKey = `${type}:${key}`;
            if (!this.cache.has(cacheKey)) this.cache.set(cacheKey, Promise.resolve(list));
          }
        },
        (error: unknown) => {
          for (const waiter of batch.waiting.values()) waiter.reject(error);
        },
      );
    }
  }
}

/** The checked object and subject of a request, validated against the model. */
export function parseTarget(model: CompiledModel, object: string, relation: string, user: string) {
  const obj = parseObject(object);
  if (!obj) throw new FgaError('validation_error', `Invalid object '${object}': expected 'type:id'.`);
  const subject = parseUser(user);
  if (!subject) throw new FgaError('validation_error', `Invalid user '${user}': expected 'type:id', 'type:*' or 'type:id#relation'.`);
  requireRelation(model, obj.type, relation);
  if (!model.types.has(subject.type)) throw new FgaError('type_not_found', `type '${subject.type}' not found`);
  if (subject.relation) requireRelation(model, subject.type, subject.relation);
  return { obj, subject };
}

export function requireRelation(model: CompiledModel, type: string, relation: string) {
  const t = model.types.get(type);
  if (!t) throw new FgaError('type_not_found', `type '${type}' not found`);
  const r = t.relations.get(relation);
  if (!r) throw new FgaError('relation_not_found', `relation '${type}#${relation}' not found`);
  return r;
}

/** The reach key of a subject: `user`, `user:*` or `group#member`. */
export const subjectKey = (user: UserRef) => (user.relation ? `${user.type}#${user.relation}` : user.id === '*' ? `${user.type}:*` : user.type);
