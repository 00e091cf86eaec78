// Walking a parsed @marcbachmann/cel-js program. Its AST nodes carry `op` and `args` (an array, possibly nested, a
// node, or a comprehension's `{ iterable, init, step }`); a macro call (`all`, `exists`, `map`…) keeps its expansion
// in `meta.alternate`, `has()` and `cel.bind()` keep theirs in `meta.macro`.
export interface CelNode {
  op: string;
  args: unknown;
  pos?: number;
  meta: { alternate?: CelNode; macro?: { args?: unknown; val?: unknown; exp?: unknown; evaluate?: unknown }; evaluate?: unknown };
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
}

export const isCelNode = (v: unknown): v is CelNode => typeof v === 'object' && v !== null && 'op' in v && 'meta' in v;

function nodesIn(value: unknown, into: CelNode[]): CelNode[] {
  if (isCelNode(value)) into.push(value);
  else if (Array.isArray(value)) for (const v of value) nodesIn(v, into);
  return into;
}

/** The nodes a node evaluates: its expansion for a macro call, else its arguments. */
export function childrenOf(node: CelNode): CelNode[] {
  const { alternate, macro } = node.meta;
  if (alternate) return [alternate];
  if (macro) return nodesIn([macro.args, macro.val, macro.exp], []);
  if (node.op === 'comprehension') {
    const { iterable, init, step } = node.args as { iterable: unknown; init: unknown; step: unknown };
    return nodesIn([iterable, init, step], []);
  }
  return nodesIn(node.args, []);
}

/** Every node reachable from `root`, each once. */
export function allNodes(root: CelNode): CelNode[] {
  const seen = new Set<CelNode>();
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...childrenOf(node));
  }
  return [...seen];
}
