// Bounds on what a request hands to conditions (AuthZEN `context` and `properties`): every condition's cost grows
// with its input, so each such object is limited in entries, nesting and size before anything is evaluated.
export const MAX_INPUT_ENTRIES = 1000;
export const MAX_INPUT_DEPTH = 8;
export const MAX_INPUT_BYTES = 16 * 1024;

/** Why a request object is too large for conditions (a phrase: "must …"), or undefined. */
export function inputBoundsProblem(value: object): string | undefined {
  let entries = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    entries += children.length;
    if (entries > MAX_INPUT_ENTRIES) return `must hold at most ${MAX_INPUT_ENTRIES} entries (keys and list items, at every level)`;
    if (children.length > 0 && depth >= MAX_INPUT_DEPTH) return `must nest at most ${MAX_INPUT_DEPTH} levels deep`;
    for (const child of children) stack.push([child, depth + 1]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > MAX_INPUT_BYTES) return `must be at most ${MAX_INPUT_BYTES} bytes of JSON (got ${bytes})`;
  return undefined;
}
