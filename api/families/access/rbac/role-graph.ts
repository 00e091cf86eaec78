// Role inheritance must stay acyclic: a role inheriting itself, directly or through others, has no meaning.

export interface InheritanceEdge {
  role: string;
  inherits: string;
}

/**
 * The cycle that giving `role` exactly the parents `inherits` would close in the environment's inheritance
 * `edges`, as role keys from `role` back to it (`['a', 'b', 'a']`), or null when there is none.
 */
export function findCycle(edges: readonly InheritanceEdge[], role: string, inherits: readonly string[]): string[] | null {
  const parents = new Map<string, string[]>([[role, [...inherits]]]);
  for (const e of edges) if (e.role !== role) parents.set(e.role, [...(parents.get(e.role) ?? []), e.inherits]);
  const path = [role];
  const visited = new Set<string>();
  const reaches = (key: string): boolean => {
    for (const next of parents.get(key) ?? []) {
      if (next === role) return path.push(role) > 0;
      if (visited.has(next)) continue;
      visited.add(next);
      path.push(next);
      if (reaches(next)) return true;
      path.pop();
    }
    return false;
  };
  return reaches(role) ? path : null;
}
