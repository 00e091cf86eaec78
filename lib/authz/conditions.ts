// Conditions (ABAC) are CEL expressions over `subject`, `resource`, `action` and `context`, compiled and
// type-checked once when saved and kept compiled in the model. The library is @marcbachmann/cel-js: it type-checks
// against declared variables (an unknown variable, function or overload is refused at save, with its position),
// where @bufbuild/cel 0.6 does not export a checker that handles calls.
// `matches()` runs on RE2 (./cel-patterns.ts) and every evaluation within a cost budget (./cel-cost.ts).
import { Environment } from '@marcbachmann/cel-js';
import type { CelNode } from './cel-ast.ts';
import { instrument, metered, staticCostProblem } from './cel-cost.ts';
import { asWritten, patternCost, useRe2, withRe2Matches } from './cel-patterns.ts';

/** The variables a condition sees: AuthZEN entities, with the stored attributes in `properties`. */
export interface ConditionInput {
  /** `id`: the directory's id (a UUID); `identifier`: the id requests name the subject by (lib/authz/evaluate.ts). */
  subject: { type: string; id: string; identifier?: string | null; properties: Record<string, unknown>; entitlements?: Record<string, unknown> };
  resource: { type: string; id: string; properties: Record<string, unknown> };
  action: { name: string; properties: Record<string, unknown> };
  context: Record<string, unknown>;
}

export interface ConditionError {
  message: string;
  /** 1-based line and column of the offending token. */
  line: number;
  column: number;
}

/**
 * Evaluates to true (permit), false, or an error (a missing key, a failed overload, a spent cost budget: the
 * condition does not hold).
 */
export type CompiledCondition = (input: ConditionInput) => boolean | { error: string; costExceeded?: true };

/**
 * An equality a condition requires (a top-level conjunct): `resource.properties.<attribute>` equals a subject field
 * or a literal. Search uses it to look instances up by attribute instead of evaluating every one.
 */
export interface ResourceEquality {
  attribute: string;
  equals: { subject: 'id' } | { subject: 'property'; key: string } | { literal: string | number | boolean };
}

export const MAX_CONDITION_LENGTH = 4096;

/** Parse-time limits of every CEL environment of ours (the library's own). */
export const CEL_LIMITS = { maxAstNodes: 1000, maxDepth: 50, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 };

const env = withRe2Matches(
  new Environment({ limits: CEL_LIMITS })
    .registerVariable('subject', 'map')
    .registerVariable('resource', 'map')
    .registerVariable('action', 'map')
    .registerVariable('context', 'map'),
);

function positionOf(source: string, offset: number | undefined) {
  const before = source.slice(0, Math.max(0, offset ?? 0));
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

function errorOf(source: string, error: unknown): ConditionError {
  const e = error as { message?: string; node?: { pos?: number } };
  const message = asWritten((e.message ?? String(error)).split('\n')[0]!.trim());
  return { message, ...positionOf(source, e.node?.pos) };
}

interface Node {
  op: string;
  args: unknown;
}
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && 'op' in v;

/** `<root>.<field>` or `<root>["<field>"]` → the field name. */
function field(node: unknown, root: Node | 'any'): { on: Node; name: string } | undefined {
  if (!isNode(node) || !Array.isArray(node.args)) return undefined;
  const [on, key] = node.args as [unknown, unknown];
  const name = node.op === '.' ? key : node.op === '[]' && isNode(key) && key.op === 'value' ? key.args : undefined;
  if (typeof name !== 'string' || !isNode(on) || (root !== 'any' && on !== root)) return undefined;
  return { on, name };
}
const isIdentifier = (node: unknown, name: string) => isNode(node) && node.op === 'id' && node.args === name;

/** `<variable>.properties.<key>` → key. */
function propertyOf(node: unknown, variable: string): string | undefined {
  const outer = field(node, 'any');
  if (!outer) return undefined;
  const inner = field(outer.on, 'any');
  return inner && inner.name === 'properties' && isIdentifier(inner.on, variable) ? outer.name : undefined;
}

function subjectSide(node: unknown): ResourceEquality['equals'] | undefined {
  const key = propertyOf(node, 'subject');
  if (key !== undefined) return { subject: 'property', key };
  const id = field(node, 'any');
  if (id && id.name === 'id' && isIdentifier(id.on, 'subject')) return { subject: 'id' };
  if (isNode(node) && node.op === 'value' && ['string', 'number', 'boolean', 'bigint'].includes(typeof node.args)) {
    return { literal: typeof node.args === 'bigint' ? Number(node.args) : (node.args as string | number | boolean) };
  }
  return undefined;
}

/** The resource equalities among the top-level conjuncts of a condition. */
function equalitiesOf(node: unknown): ResourceEquality[] {
  if (!isNode(node) || !Array.isArray(node.args)) return [];
  if (node.op === '&&') return (node.args as unknown[]).flatMap(equalitiesOf);
  if (node.op !== '==') return [];
  const [left, right] = node.args as [unknown, unknown];
  for (const [a, b] of [
    [left, right],
    [right, left],
  ]) {
    const attribute = propertyOf(a, 'resource');
    const equals = subjectSide(b);
    if (attribute !== undefined && equals) return [{ attribute, equals }];
  }
  return [];
}

/**
 * Parses and type-checks a condition in `environment` (its declared variables, RE2 `matches`), or says what is
 * wrong with it and where: a pattern RE2 refuses, a non-boolean result, a cost over the limit. The program it
 * returns spends budget as it runs (evaluate it with `evaluateMetered`).
 */
export function parseBooleanCondition(
  environment: Environment,
  source: string,
): { ok: true; program: ReturnType<Environment['parse']> } | { ok: false; error: ConditionError } {
  if (source.trim() === '') return { ok: false, error: { message: 'A condition must not be empty.', line: 1, column: 1 } };
  if (source.length > MAX_CONDITION_LENGTH) {
    return { ok: false, error: { message: `A condition must be at most ${MAX_CONDITION_LENGTH} characters.`, line: 1, column: 1 } };
  }
  let program;
  let root: CelNode;
  let checked;
  try {
    program = environment.parse(source);
    root = program.ast as unknown as CelNode;
    const refused = useRe2(root);
    if (refused) return { ok: false, error: { message: refused.message, ...positionOf(source, refused.node.pos) } };
    checked = program.check();
  } catch (error) {
    return { ok: false, error: errorOf(source, error) };
  }
  if (!checked.valid) return { ok: false, error: errorOf(source, checked.error) };
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { ok: false, error: { message: `A condition must evaluate to a bool, not ${checked.type}.`, line: 1, column: 1 } };
  }
  const costly = staticCostProblem(root, patternCost);
  if (costly) return { ok: false, error: { message: costly, line: 1, column: 1 } };
  instrument(root);
  return { ok: true, program };
}

/** Evaluates a parsed condition within its cost budget: true, false, or why it does not hold. */
export function evaluateMetered(program: ReturnType<Environment['parse']>, input: object): boolean | { error: string; costExceeded?: true } {
  const run = metered(() => program(input as Record<string, unknown>));
  if (run.ok) return typeof run.value === 'boolean' ? run.value : { error: `The condition evaluated to ${typeof run.value}, not a bool.` };
  if (run.costExceeded) return { error: run.costExceeded, costExceeded: true };
  return { error: asWritten((run.error instanceof Error ? run.error.message : String(run.error)).split('\n')[0]!.trim()) };
}

/** Compiles a condition, or says what is wrong with it and where. Only a boolean (or dynamic) result is accepted. */
export function compileCondition(
  source: string,
): { ok: true; evaluate: CompiledCondition; equalities: ResourceEquality[] } | { ok: false; error: ConditionError } {
  const parsed = parseBooleanCondition(env, source);
  if (!parsed.ok) return parsed;
  const { program } = parsed;
  return {
    ok: true,
    equalities: equalitiesOf((program as unknown as { ast: unknown }).ast),
    evaluate: (input) => evaluateMetered(program, input),
  };
}
