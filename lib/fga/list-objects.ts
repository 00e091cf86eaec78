// ListObjects: from the user up the model's reverse graph (its direct tuples, the wildcard tuples of its type, the
// usersets that contain it, the parents that pass a relation down), one batched reverse-index look-up (byUsers) per
// edge and step, to the objects of the asked type. An object reached only through an intersection, an exclusion, a
// condition that cannot be decided here or a too deep path is a candidate that `check` confirms, so the answer agrees
// with check. Never enumerates the objects of a type.
import { Resolver } from './check.ts';
import type { CompiledModel, ReverseEdge } from './model.ts';
import { contextualTuples, parseTarget, requireRelation, TupleLoader, withContextualTuples } from './resolution.ts';
import { FGA_LIMITS, FgaError, type ListObjectsRequest, type Tuple, type TupleReader, type UserRef } from './types.ts';

export interface ListObjectsOptions {
  /** At most this many objects (default FGA_LIMITS.listObjectsResults). */
  limit?: number;
  /** Called with each object (`type:id`) as it is found. */
  onObject?: (object: string) => void;
}

/** A step of the walk: the subject has `relation` on these objects of `type` (or may have, when unsure). */
interface Fact {
  type: string;
  relation: string;
  ids: string[];
  unsure: boolean;
}

export async function listObjects(model: CompiledModel, reader: TupleReader, request: ListObjectsRequest, options: ListObjectsOptions = {}): Promise<string[]> {
  const limit = Math.max(0, options.limit ?? FGA_LIMITS.listObjectsResults);
  requireRelation(model, request.type, request.relation);
  const { subject } = parseTarget(model, `${request.type}:x`, request.relation, request.user);
  const loader = new TupleLoader(withContextualTuples(reader, contextualTuples(model, request)));
  const resolver = new Resolver(model, loader, subject, request.context);
  const found = new Set<string>();
  const confirming = new Set<string>();
  const confirmations: Promise<void>[] = [];
  const emit = (id: string) => {
    if (found.size >= limit || found.has(id)) return;
    found.add(id);
    options.onObject?.(`${request.type}:${id}`);
  };
  const confirm = (id: string) => {
    if (found.has(id) || confirming.has(id)) return;
    confirming.add(id);
    confirmations.push(
      Promise.resolve(resolver.resolve(request.type, id, request.relation, 0, undefined)).then((outcome) => {
        if (outcome instanceof FgaError) throw outcome;
        if (outcome) emit(id);
      }),
    );
  };

  // Best knowledge per node (`type#relation` → id → sure?): a node is walked again only when it becomes sure.
  const seen = new Map<string, Map<string, boolean>>();
  const fresh = (type: string, relation: string, ids: Iterable<string>, unsure: boolean): string[] => {
    const node = `${type}#${relation}`;
    let known = seen.get(node);
    if (!known) seen.set(node, (known = new Map()));
    const out: string[] = [];
    for (const id of ids) {
      const before = known.get(id);
      if (before === true || (before === false && unsure)) continue;
      known.set(id, !unsure);
      out.push(id);
    }
    return out;
  };

  const reach = (type: string, relation: string, ids: Iterable<string>, unsure: boolean, next: Fact[]) => {
    const novel = fresh(type, relation, ids, unsure);
    if (novel.length === 0) return;
    if (type === request.type && relation === request.relation) {
      for (const id of novel) {
        if (unsure) confirm(id);
        else emit(id);
      }
    }
    next.push({ type, relation, ids: novel, unsure });
  };

  /** The tuples' objects, less those whose condition is false; `unsure` where a condition cannot be decided here. */
  const objectsOf = (tuples: Tuple[]) => {
    const sure = new Set<string>();
    const unsure = new Set<string>();
    for (const t of tuples) {
      const holds = resolver.conditionHolds(t);
      if (holds === true) sure.add(t.objectId);
      else if (holds !== false) unsure.add(t.objectId);
    }
    for (const id of sure) unsure.delete(id);
    return { sure, unsure };
  };

  /** Follows edges from the users (the subject, or a fact's objects) one reverse-index look-up per edge, side by side. */
  const follow = (edges: ReverseEdge[] | undefined, users: UserRef[], fact: Fact | undefined, next: Fact[]) =>
    Promise.all(
      (edges ?? []).map(async (e) => {
        const unsure = (fact?.unsure ?? false) || e.unsure;
        if (e.kind === 'computed') return reach(e.objectType, e.relation, fact!.ids, unsure, next);
        if (found.size >= limit) return;
        loader.calls++;
        const tuples = await loader.reader.byUsers(e.objectType, e.kind === 'direct' ? e.relation : e.tupleset, users);
        const objects = objectsOf(tuples);
        reach(e.objectType, e.relation, objects.sure, unsure, next);
        reach(e.objectType, e.relation, objects.unsure, true, next);
      }),
    );

  try {
    let frontier: Fact[] = [];
    // The subject itself: an object, a wildcard or a userset (which also holds its own relation).
    if (subject.relation) {
      reach(subject.type, subject.relation, [subject.id], false, frontier);
    } else {
      await Promise.all([
        follow(model.reverse.get(subject.id === '*' ? `${subject.type}:*` : subject.type), [subject], undefined, frontier),
        subject.id === '*' ? undefined : follow(model.reverse.get(`${subject.type}:*`), [{ type: subject.type, id: '*', relation: '' }], undefined, frontier),
      ]);
    }
    for (let depth = 1; frontier.length > 0 && found.size < limit; depth++) {
      const next: Fact[] = [];
      const tooDeep = depth > FGA_LIMITS.resolutionDepth;
      // One fact per node and certainty: its objects are looked up together.
      const merged = new Map<string, Fact>();
      for (const fact of frontier) {
        const key = `${fact.type}#${fact.relation}#${fact.unsure || tooDeep}`;
        const into = merged.get(key);
        if (into) into.ids.push(...fact.ids);
        else merged.set(key, { ...fact, ids: [...fact.ids], unsure: fact.unsure || tooDeep });
      }
      await Promise.all(
        [...merged.values()].map((fact) => {
          const edges = model.reverse.get(`${fact.type}#${fact.relation}`);
          if (!edges) return undefined;
          const asUsersets = fact.ids.map((id) => ({ type: fact.type, id, relation: fact.relation }));
          const asObjects = fact.ids.map((id) => ({ type: fact.type, id, relation: '' }));
          return Promise.all([
            follow(
              edges.filter((e) => e.kind !== 'ttu'),
              asUsersets,
              fact,
              next,
            ),
            follow(
              edges.filter((e) => e.kind === 'ttu'),
              asObjects,
              fact,
              next,
            ),
          ]);
        }),
      );
      frontier = next;
    }
    await Promise.all(confirmations);
  } finally {
    loader.done = true;
  }
  return [...found].map((id) => `${request.type}:${id}`);
}
