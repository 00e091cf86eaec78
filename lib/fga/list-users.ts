// ListUsers: forward from the object through its relation's rewrite, collecting the users of the filter types as
// sets; intersection and exclusion are computed on the sets, a wildcard carrying the ids excluded from it. So
// `user:*` and `user:anne` is `user:anne`, `(user:* but not user:anne) and [anne, bob]` is `user:bob`, and `user:*`
// less `user:anne` answers `user:*` (OpenFGA's documented behaviour: an exclusion from a wildcard is not listed;
// check the user).
import { Resolver } from './check.ts';
import type { CompiledModel, CompiledRelation } from './model.ts';
import { contextualTuples, requireRelation, TupleLoader, withContextualTuples } from './resolution.ts';
import { FGA_LIMITS, FgaError, type ListedUser, type ListUsersRequest, type TupleReader, type Userset } from './types.ts';

interface Users {
  /** `type:id` */
  objects: Set<string>;
  /** Wildcards by type, each with the ids excluded from it (`user:*` less `user:anne`). */
  wildcards: Map<string, Set<string>>;
  /** `type:id#relation` */
  usersets: Set<string>;
}

const empty = (): Users => ({ objects: new Set(), wildcards: new Map(), usersets: new Set() });
const typeOf = (object: string) => object.slice(0, object.indexOf(':'));
const idOf = (object: string) => object.slice(object.indexOf(':') + 1);

/** Whether the set holds an object, explicitly or through its type's wildcard. */
const holds = (s: Users, object: string) => {
  if (s.objects.has(object)) return true;
  const excluded = s.wildcards.get(typeOf(object));
  return excluded !== undefined && !excluded.has(idOf(object));
};

function union(sets: Users[]): Users {
  const out = empty();
  for (const s of sets) {
    for (const o of s.objects) out.objects.add(o);
    for (const u of s.usersets) out.usersets.add(u);
  }
  for (const s of sets) {
    for (const [type, excluded] of s.wildcards) {
      const kept = new Set([...excluded].filter((id) => !out.objects.has(`${type}:${id}`)));
      const before = out.wildcards.get(type);
      out.wildcards.set(type, before ? new Set([...before].filter((id) => kept.has(id))) : kept);
    }
  }
  return out;
}

function intersect(a: Users, b: Users): Users {
  const out = empty();
  for (const o of a.objects) if (holds(b, o)) out.objects.add(o);
  for (const o of b.objects) if (holds(a, o)) out.objects.add(o);
  for (const [type, excluded] of a.wildcards) {
    const other = b.wildcards.get(type);
    if (other) out.wildcards.set(type, new Set([...excluded, ...other]));
  }
  for (const u of a.usersets) if (b.usersets.has(u)) out.usersets.add(u);
  return out;
}

function subtract(a: Users, b: Users): Users {
  const out = empty();
  for (const o of a.objects) if (!holds(b, o)) out.objects.add(o);
  for (const [type, excluded] of a.wildcards) {
    const minus = b.wildcards.get(type);
    if (minus) {
      // All of the type less what `b` leaves out of its wildcard: only those, and only where `a` has them.
      for (const id of minus) if (!excluded.has(id)) out.objects.add(`${type}:${id}`);
    } else {
      const more = new Set(excluded);
      for (const o of b.objects) if (typeOf(o) === type) more.add(idOf(o));
      out.wildcards.set(type, more);
    }
  }
  for (const u of a.usersets) if (!b.usersets.has(u)) out.usersets.add(u);
  return out;
}

interface Chain {
  key: string;
  up: Chain | undefined;
}

export async function listUsers(model: CompiledModel, reader: TupleReader, request: ListUsersRequest): Promise<ListedUser[]> {
  requireRelation(model, request.object.type, request.relation);
  if (request.userFilters.length === 0) throw new FgaError('validation_error', 'At least one user filter is required.');
  for (const filter of request.userFilters) {
    if (filter.relation) requireRelation(model, filter.type, filter.relation);
    else if (!model.types.has(filter.type)) throw new FgaError('type_not_found', `type '${filter.type}' not found`);
  }
  const objectTypes = new Set(request.userFilters.filter((f) => !f.relation).map((f) => f.type));
  const usersetTypes = new Set(request.userFilters.filter((f) => f.relation).map((f) => `${f.type}#${f.relation}`));
  const loader = new TupleLoader(withContextualTuples(reader, contextualTuples(model, request)));
  // Only for conditions: the subject is irrelevant to them.
  const conditions = new Resolver(model, loader, { type: '', id: '', relation: '' }, request.context);
  const memo = new Map<string, Users>();
  let cuts = 0;

  const node = async (type: string, id: string, relation: string, depth: number, chain: Chain | undefined): Promise<Users> => {
    const key = `${type}:${id}#${relation}`;
    const known = memo.get(key);
    if (known) return known;
    let c = chain;
    for (; c; c = c.up) if (c.key === key) break;
    if (c) {
      cuts++;
      return empty();
    }
    if (depth > FGA_LIMITS.resolutionDepth) {
      throw new FgaError('authorization_model_resolution_too_complex', `Resolution of '${key}' exceeds the depth limit of ${FGA_LIMITS.resolutionDepth}.`);
    }
    const definition = model.types.get(type)?.relations.get(relation);
    const before = cuts;
    let users = definition ? await rewrite(definition, id, definition.rewrite, depth, { key, up: chain }) : empty();
    if (usersetTypes.has(`${type}#${relation}`)) {
      users = union([users]);
      users.usersets.add(key);
    }
    if (cuts === before) memo.set(key, users);
    return users;
  };

  const rewrite = async (definition: CompiledRelation, id: string, r: Userset, depth: number, chain: Chain): Promise<Users> => {
    if (r.this) {
      const out = empty();
      const nested: Promise<Users>[] = [];
      for (const t of await loader.tuples(definition.type, id, definition.name)) {
        const holds = conditions.conditionHolds(t);
        if (holds instanceof FgaError) throw holds;
        if (!holds) continue;
        if (t.userRelation) nested.push(node(t.userType, t.userId, t.userRelation, depth + 1, chain));
        else if (t.userId === '*') {
          if (objectTypes.has(t.userType)) out.wildcards.set(t.userType, new Set());
        } else if (objectTypes.has(t.userType)) out.objects.add(`${t.userType}:${t.userId}`);
      }
      return nested.length > 0 ? union([out, ...(await Promise.all(nested))]) : out;
    }
    if (r.computedUserset) return node(definition.type, id, r.computedUserset.relation, depth + 1, chain);
    if (r.tupleToUserset) {
      const computed = r.tupleToUserset.computedUserset.relation;
      const parents: Promise<Users>[] = [];
      for (const t of await loader.tuples(definition.type, id, r.tupleToUserset.tupleset.relation)) {
        if (t.userRelation || t.userId === '*' || !model.types.get(t.userType)?.relations.has(computed)) continue;
        const holds = conditions.conditionHolds(t);
        if (holds instanceof FgaError) throw holds;
        if (holds) parents.push(node(t.userType, t.userId, computed, depth + 1, chain));
      }
      return union(await Promise.all(parents));
    }
    if (r.union) return union(await Promise.all(r.union.child.map((child) => rewrite(definition, id, child, depth, chain))));
    if (r.intersection) {
      const sets = await Promise.all(r.intersection.child.map((child) => rewrite(definition, id, child, depth, chain)));
      return sets.reduce(intersect);
    }
    if (r.difference) {
      const [base, minus] = await Promise.all([
        rewrite(definition, id, r.difference.base, depth, chain),
        rewrite(definition, id, r.difference.subtract, depth, chain),
      ]);
      return subtract(base, minus);
    }
    return empty();
  };

  let users: Users;
  try {
    users = await node(request.object.type, request.object.id, request.relation, 0, undefined);
  } finally {
    loader.done = true;
  }
  const out: ListedUser[] = [];
  for (const type of users.wildcards.keys()) out.push({ wildcard: { type } });
  for (const o of users.objects)
    if (!users.wildcards.has(typeOf(o)) || !users.wildcards.get(typeOf(o))!.has(idOf(o))) out.push({ object: { type: typeOf(o), id: idOf(o) } });
  for (const u of users.usersets) {
    const colon = u.indexOf(':');
    const hash = u.lastIndexOf('#');
    out.push({ userset: { type: u.slice(0, colon), id: u.slice(colon + 1, hash), relation: u.slice(hash + 1) } });
  }
  return out.slice(0, FGA_LIMITS.listUsersResults);
}
