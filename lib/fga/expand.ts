// Expand: one level of the userset tree of `object#relation`, in OpenFGA's response shape. Like OpenFGA's, it lists
// the tuples' users as written (usersets and wildcards included) without evaluating their conditions.
import type { CompiledModel, CompiledRelation } from './model.ts';
import { contextualTuples, requireRelation, TupleLoader, withContextualTuples } from './resolution.ts';
import { formatTupleUser, parseObject } from './tuples.ts';
import { FgaError, type QueryOptions, type TupleReader, type Userset, type UsersetTree, type UsersetTreeNode } from './types.ts';

export interface ExpandRequest extends QueryOptions {
  object: string;
  relation: string;
}

export async function expand(model: CompiledModel, reader: TupleReader, request: ExpandRequest): Promise<UsersetTree> {
  const obj = parseObject(request.object);
  if (!obj) throw new FgaError('validation_error', `Invalid object '${request.object}': expected 'type:id'.`);
  const definition = requireRelation(model, obj.type, request.relation);
  const loader = new TupleLoader(withContextualTuples(reader, contextualTuples(model, request)));
  const name = `${request.object}#${request.relation}`;

  const node = async (r: Userset, relation: CompiledRelation): Promise<UsersetTreeNode> => {
    if (r.this) {
      const tuples = await loader.tuples(obj.type, obj.id, relation.name);
      return { name, leaf: { users: { users: [...new Set(tuples.map(formatTupleUser))] } } };
    }
    if (r.computedUserset) return { name, leaf: { computed: { userset: `${request.object}#${r.computedUserset.relation}` } } };
    if (r.tupleToUserset) {
      const tupleset = r.tupleToUserset.tupleset.relation;
      const computed = r.tupleToUserset.computedUserset.relation;
      const tuples = await loader.tuples(obj.type, obj.id, tupleset);
      const parents = tuples
        .filter((t) => !t.userRelation && t.userId !== '*' && model.types.get(t.userType)?.relations.has(computed))
        .map((t) => `${t.userType}:${t.userId}#${computed}`);
      return {
        name,
        leaf: { tupleToUserset: { tupleset: `${request.object}#${tupleset}`, computed: [...new Set(parents)].map((userset) => ({ userset })) } },
      };
    }
    if (r.union) return { name, union: { nodes: await Promise.all(r.union.child.map((c) => node(c, relation))) } };
    if (r.intersection) return { name, intersection: { nodes: await Promise.all(r.intersection.child.map((c) => node(c, relation))) } };
    if (r.difference) {
      const [base, subtract] = await Promise.all([node(r.difference.base, relation), node(r.difference.subtract, relation)]);
      return { name, difference: { base, subtract } };
    }
    return { name, leaf: { users: { users: [] } } };
  };
  try {
    return { root: await node(definition.rewrite, definition) };
  } finally {
    loader.done = true;
  }
}
