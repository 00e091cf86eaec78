// The cost of a CEL condition, in units of about one evaluated expression node (~0.1 µs). Checked when a condition
// is saved (a static estimate over lists of ESTIMATE_LIST_ITEMS items, and a cap on nested comprehensions) and
// enforced when it is evaluated: every node evaluated costs 1, a list or string it yields costs its size, a regular
// expression match its input × program size. A condition over its budget stops at once and does not hold; the
// budget of a whole request (a batch, a search) bounds every condition it evaluates together.
import { allNodes, childrenOf, type CelNode } from './cel-ast.ts';

export const CONDITION_COST_LIMIT = 50_000;
export const REQUEST_COST_LIMIT = 200_000;
export const MAX_COMPREHENSION_NESTING = 2;
export const ESTIMATE_LIST_ITEMS = 50;

/** Thrown (one preallocated instance: no stack captured per throw) when a budget runs out. */
class CostLimitExceeded extends Error {}
const EXCEEDED = new CostLimitExceeded('cost limit exceeded');

interface Meter {
  remaining: number;
  exceeded: boolean;
}
let meter: Meter | undefined;
let request: { remaining: number } | undefined;

/** Spends `units` of the running evaluation's budget; throws once it is spent (no-op outside an evaluation). */
export function charge(units: number) {
  const m = meter;
  if (m && (m.remaining -= units) < 0) {
    m.exceeded = true;
    throw EXCEEDED;
  }
}

const sizeOf = (value: unknown) => (typeof value === 'string' ? value.length >> 6 : Array.isArray(value) ? value.length : 0);

/** Makes every node of a checked program spend budget when it is evaluated. */
export function instrument(root: CelNode) {
  for (const node of allNodes(root)) {
    let inner: ((ev: unknown, ast: unknown, ctx: unknown) => unknown) | undefined;
    // Resolved on first use (type-checking may set the node's meta), as the library's own evaluate does.
    const resolve = () => {
      const { alternate, macro, evaluate } = node.meta;
      if (alternate) return (ev: unknown, _ast: unknown, ctx: unknown) => alternate.evaluate(ev, alternate, ctx);
      if (macro) return (ev: unknown, _ast: unknown, ctx: unknown) => (macro.evaluate as CelNode['evaluate'])(ev, macro, ctx);
      return evaluate as CelNode['evaluate'];
    };
    node.evaluate = (ev, ast, ctx) => {
      charge(1);
      const result = (inner ??= resolve())(ev, ast, ctx);
      const size = sizeOf(result);
      if (size > 0) charge(size);
      return result;
    };
  }
}

export type Metered<T> = { ok: true; value: T } | { ok: false; error: unknown; costExceeded?: string };

/** Runs one evaluation within the condition's budget and what is left of the request's. */
export function metered<T>(run: () => T): Metered<T> {
  const fromRequest = request !== undefined && request.remaining < CONDITION_COST_LIMIT;
  if (request && request.remaining <= 0) return { ok: false, error: EXCEEDED, costExceeded: requestMessage };
  const m: Meter = { remaining: fromRequest ? request!.remaining : CONDITION_COST_LIMIT, exceeded: false };
  const start = m.remaining;
  const outer = meter;
  meter = m;
  let outcome: Metered<T>;
  try {
    outcome = { ok: true, value: run() };
  } catch (error) {
    outcome = { ok: false, error };
  } finally {
    meter = outer;
    if (request) request.remaining -= start - m.remaining;
  }
  // An exceeded budget denies even when CEL's error absorption (`true || error`) produced a value.
  if (m.exceeded) return { ok: false, error: EXCEEDED, costExceeded: fromRequest ? requestMessage : conditionMessage };
  return outcome;
}

const conditionMessage = `The condition exceeded its cost limit (${CONDITION_COST_LIMIT} units) and does not hold.`;
const requestMessage = `The request exceeded its cost limit (${REQUEST_COST_LIMIT} units) before this condition finished; it does not hold.`;

/**
 * One request's budget, for a request whose decisions run in several synchronous parts (between awaits): each part
 * runs through the function returned, and all of them spend the same budget.
 */
export function createRequestBudget(): <T>(work: () => T) => T {
  const budget = { remaining: REQUEST_COST_LIMIT };
  return (work) => {
    const outer = request;
    request = budget;
    try {
      return work();
    } finally {
      request = outer;
    }
  };
}

/** Runs `work` (the decisions of one request, synchronous) within one shared budget. */
export const withinRequestBudget = <T>(work: () => T): T => createRequestBudget()(work);

/** Whether the running request's budget is spent (a search stops its page there). */
export const requestBudgetSpent = () => request !== undefined && request.remaining <= 0;

/**
 * Why a condition is too costly to save, or undefined: comprehensions nested deeper than allowed, or an estimate
 * (each comprehension over ESTIMATE_LIST_ITEMS items) above the condition's budget. `extra` adds a node's own cost.
 */
export function staticCostProblem(root: CelNode, extra: (node: CelNode) => number): string | undefined {
  let deepest = 0;
  const estimate = (node: CelNode, nesting: number): number => {
    if (node.op === 'comprehension') {
      deepest = Math.max(deepest, nesting + 1);
      const { iterable, init, step } = node.args as Record<string, CelNode>;
      const items = ESTIMATE_LIST_ITEMS;
      return 1 + estimate(iterable!, nesting) + items + estimate(init!, nesting) + items * estimate(step!, nesting + 1);
    }
    return 1 + extra(node) + childrenOf(node).reduce((sum, child) => sum + estimate(child, nesting), 0);
  };
  const cost = estimate(root, 0);
  if (deepest > MAX_COMPREHENSION_NESTING) return `Comprehensions (all, exists, map, filter…) may nest at most ${MAX_COMPREHENSION_NESTING} deep.`;
  if (cost > CONDITION_COST_LIMIT) {
    return `The condition's estimated cost (${cost} units, with lists of ${ESTIMATE_LIST_ITEMS} items) exceeds its limit of ${CONDITION_COST_LIMIT}.`;
  }
  return undefined;
}
