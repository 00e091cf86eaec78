// Every pattern a caller supplies (CEL `matches()`, an elevate policy's ticket pattern) runs on RE2 (re2js, pure
// JS): no backreferences or lookaround, and a match takes time linear in the input (times the compiled program's
// size, hence its cap). Node's RegExp backtracks: `^(a+)+$` on 29 characters takes seconds there.
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

// re2js is loaded by the first pattern compiled (a CEL `matches()`, a ticket or form field pattern) and kept; callers
// compile synchronously, hence require() rather than import().
let re2js: typeof RE2JS | undefined;
const loadRe2js = () => (re2js ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS);

export const MAX_PATTERN_LENGTH = 256;
/** Instructions of the compiled program: a match costs about (input length × program size). */
export const MAX_PATTERN_PROGRAM_SIZE = 200;

export type Pattern = { ok: true; re: RE2JS; size: number } | { ok: false; message: string };

const CACHE_MAX = 1000;
const cache = new Map<string, Pattern>();

function compile(source: string): Pattern {
  if (source.length > MAX_PATTERN_LENGTH) return { ok: false, message: `must be at most ${MAX_PATTERN_LENGTH} characters` };
  let re: RE2JS;
  try {
    re = loadRe2js().compile(source);
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, message: `is not a valid RE2 regular expression (${message})` };
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM_SIZE) {
    return { ok: false, message: `compiles to ${size} instructions; at most ${MAX_PATTERN_PROGRAM_SIZE} are allowed (use fewer or smaller repetitions)` };
  }
  return { ok: true, re, size };
}

/** The compiled pattern, or why it is refused (a sentence fragment: "is not a valid …"); compiled once per text. */
export function compilePattern(source: string): Pattern {
  const cached = cache.get(source);
  if (cached) return cached;
  const compiled = compile(source);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(source, compiled);
  return compiled;
}

/** What a match of `input` costs in CEL cost units (one ≈ one expression node, ~0.1 µs): input length × program size. */
export const matchCost = (pattern: { size: number }, input: string) => 1 + Math.ceil((input.length * pattern.size) / 6);
