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

  let frontier: Fact[] = [];
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

  const follow = async (edges: ReverseEdge[] | undefined, users: UserRef[], fact: Fact | undefined, next: Fact[]) => {
    for (const e of edges ?? []) {
      if (found.size >= limit) return;
      const unsure = (fact?.unsure ?? false) || e.unsure;
      if (e.kind === 'computed') {
        reach(e.objectType, e.relation, fact!.ids, unsure, next);
        continue;
      }
      loader.calls++;
      const tuples =
        e.kind === 'direct' ? await loader.reader.byUsers(e.objectType, e.relation, users) : await loader.reader.byUsers(e.objectType, e.tupleset, users);
      const objects = objectsOf(tuples);
      reach(e.objectType, e.relation, objects.sure, unsure, next);
      reach(e.objectType, e.relation, objects.unsure, true, next);
    }
  };

  try {
    // The subject itself: an object, a wildcard or a userset (which also holds its own relation).
    if (subject.relation) {
      reach(subject.type, subject.relation, [subject.id], false, frontier);
    } else {
      const start: Fact[] = [];
      await follow(model.reverse.get(subject.id === '*' ? `${subject.type}:*` : subject.type), [subject], undefined, start);
      if (subject.id !== '*') await follow(model.reverse.get(`${subject.type}:*`), [{ type: subject.type, id: '*', relation: '' }], undefined, start);
      frontier = start;
    }
    for (let depth = 1; frontier.length > 0 && found.size < limit; depth++) {
      const next: Fact[] = [];
      const tooDeep = depth > FGA_LIMITS.resolutionDepth;
      for (const fact of frontier) {
        if (found.size >= limit) break;
        const node = `${fact.type}#${fact.relation}`;
        const edges = model.reverse.get(node);
        if (!edges) continue;
        const asUsersets = fact.ids.map((id) => ({ type: fact.type, id, relation: fact.relation }));
        const asObjects = fact.ids.map((id) => ({ type: fact.type, id, relation: '' }));
        const step = { ...fact, unsure: fact.unsure || tooDeep };
        await follow(
          edges.filter((e) => e.kind !== 'ttu'),
          asUsersets,
          step,
          next,
        );
        await follow(
          edges.filter((e) => e.kind === 'ttu'),
          asObjects,
          step,
          next,
        );
      }
      frontier = next;
    }
    await Promise.all(confirmations);
  } finally {
    loader.done = true;
  }
  return [...found].map((id) => `${request.type}:${id}`);
}
