// CEL `matches()` on RE2. The library's built-in `string.matches` is JavaScript's backtracking RegExp and cannot be
// replaced (a second overload "overlaps"), so each parsed condition's `matches` calls are renamed to a function of
// our own backed by re2js (../patterns/re2.ts) before the condition is type-checked. CEL semantics: the pattern
// matches anywhere in the string unless anchored. The pattern must be a string literal, compiled when the condition
// is saved; a pattern RE2 refuses is an error at its position.
import type { Environment } from '@marcbachmann/cel-js';
import { compilePattern, matchCost } from '../patterns/re2.ts';
import { allNodes, isCelNode, type CelNode } from './cel-ast.ts';
import { charge } from './cel-cost.ts';

const RE2_MATCHES = 're2Matches';

/** Registers the RE2 `matches` on an environment. */
export function withRe2Matches(env: Environment): Environment {
  const matches = (input: string, source: string) => {
    const pattern = compilePattern(source);
    if (!pattern.ok) throw new Error(`The pattern ${JSON.stringify(source)} ${pattern.message}.`);
    charge(matchCost(pattern, input));
    return pattern.re.test(input);
  };
  return env.registerFunction(`string.${RE2_MATCHES}(string): bool`, matches).registerFunction(`${RE2_MATCHES}(string, string): bool`, matches);
}

/** Error messages name the function as written. */
export const asWritten = (message: string) => message.replaceAll(RE2_MATCHES, 'matches');

type Problem = { message: string; node: CelNode };

/** Renames the `matches` calls of a parsed program to the RE2 function, or says which pattern is refused and why. */
export function useRe2(root: CelNode): Problem | undefined {
  for (const node of allNodes(root)) {
    if (node.op !== 'rcall' && node.op !== 'call') continue;
    const args = node.args as unknown[];
    if (args[0] === RE2_MATCHES) return { message: `Unknown function: ${RE2_MATCHES}`, node };
    if (args[0] !== 'matches') continue;
    const pattern = (args.at(-1) as unknown[])[node.op === 'rcall' ? 0 : 1];
    if (!isCelNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') {
      return { message: 'The pattern of matches() must be a string literal.', node: isCelNode(pattern) ? pattern : node };
    }
    const compiled = compilePattern(pattern.args);
    if (!compiled.ok) return { message: `The pattern ${JSON.stringify(pattern.args)} ${compiled.message}.`, node: pattern };
    args[0] = RE2_MATCHES;
  }
  return undefined;
}

/** A `matches` call's own estimated cost (its program size), for the static cost check. */
export function patternCost(node: CelNode): number {
  if ((node.op !== 'rcall' && node.op !== 'call') || (node.args as unknown[])[0] !== RE2_MATCHES) return 0;
  const args = node.args as unknown[];
  const pattern = (args.at(-1) as CelNode[])[node.op === 'rcall' ? 0 : 1]!;
  const compiled = compilePattern(pattern.args as string);
  return compiled.ok ? compiled.size : 0;
}
