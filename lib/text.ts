// Characters a name (of a tenant, a key, a channel…) must not hold: names end up in terminals, logs, emails and
// consoles, where these reorder or hide text (bidi overrides, Trojan Source) or forge lines and escapes.
const UNSAFE_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** Why `text` may not be a name (naming the first offending character), or undefined when it may. */
export function nameProblem(text: string): string | undefined {
  const found = UNSAFE_IN_NAMES.exec(text)?.[0];
  if (found === undefined) return undefined;
  const codePoint = `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `must not contain control or bidirectional formatting characters (found ${codePoint})`;
}
