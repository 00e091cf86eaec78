import { z } from 'zod';

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

/**
 * A name, title or display name in a request: trimmed, not empty, at most `max` characters, and free of C0/C1
 * control characters, DEL, line and paragraph separators and bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069). Free-text descriptions keep their newlines and do not use it.
 */
export const displayName = (max = 200) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .superRefine((value, ctx) => {
      const problem = nameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
