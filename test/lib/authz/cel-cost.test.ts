// RE2 semantics of matches() and the cost budget of conditions, without a database.
import { describe, expect, it } from 'vitest';
import { compileCondition, type ConditionInput } from '../../../lib/authz/conditions.ts';
import { CONDITION_COST_LIMIT, REQUEST_COST_LIMIT, requestBudgetSpent, withinRequestBudget } from '../../../lib/authz/cel-cost.ts';
import { inputBoundsProblem } from '../../../lib/authz/input-bounds.ts';

const input = (context: Record<string, unknown>): ConditionInput => ({
  subject: { type: 'user', id: 'u1', properties: {} },
  resource: { type: 'doc', id: 'd1', properties: {} },
  action: { name: 'read', properties: {} },
  context,
});
const compiled = (source: string) => {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(c.error.message);
  return c.evaluate;
};
const list = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('matches() on RE2', () => {
  it.each([
    ["context.s.matches('b')", 'abc', true], // a substring match, as CEL specifies
    ["context.s.matches('^b')", 'abc', false],
    ["context.s.matches('(?i)ABC$')", 'xabc', true],
    ["context.s.matches('^\\\\p{L}+$')", 'héllo', true],
    ["matches(context.s, '^[0-9]{3}$')", '123', true],
    ["context.s.matches('^(a+)+$')", `${'a'.repeat(5000)}!`, false], // linear time: no backtracking
  ])('%s on %j → %s', (source, s, expected) => {
    expect(compiled(source)(input({ s }))).toBe(expected);
  });
});

describe('the cost budget', () => {
  it('stops nested comprehensions over a long list: the condition does not hold, with the reason', () => {
    const started = performance.now();
    expect(compiled('context.l.all(x, context.l.all(y, x + y >= 0))')(input({ l: list(1000) }))).toEqual({
      error: `The condition exceeded its cost limit (${CONDITION_COST_LIMIT} units) and does not hold.`,
      costExceeded: true,
    });
    expect(performance.now() - started).toBeLessThan(1000); // unbounded, 10⁶ iterations
    expect(compiled('context.l.all(x, context.l.all(y, x + y >= 0))')(input({ l: list(10) }))).toBe(true);
  });

  it('denies even when an error-absorbing operator would have produced true', () => {
    const condition = compiled('context.l.exists(x, context.l.all(y, x + y < 0)) || true');
    expect(condition(input({ l: list(1000) }))).toMatchObject({ costExceeded: true });
  });

  it('charges a match by its input length and program size', () => {
    const condition = compiled("context.l.exists(s, s.matches('^[a-z]{1,30}x$'))");
    expect(condition(input({ l: Array.from({ length: 200 }, () => 'a'.repeat(500)) }))).toMatchObject({ costExceeded: true });
  });

  it('shares one budget across the conditions of a request', () => {
    const condition = compiled('context.l.all(x, context.l.all(y, x + y >= 0))');
    const results = withinRequestBudget(() => {
      const all = list(20).map(() => condition(input({ l: list(60) })));
      expect(requestBudgetSpent()).toBe(true);
      return all;
    });
    expect(results[0]).toBe(true);
    expect(results.at(-1)).toEqual({
      error: `The request exceeded its cost limit (${REQUEST_COST_LIMIT} units) before this condition finished; it does not hold.`,
      costExceeded: true,
    });
    expect(requestBudgetSpent()).toBe(false); // outside a request, only a condition's own budget applies
  });
});

describe('input bounds', () => {
  it.each([
    [{ l: list(999) }, undefined],
    [{ l: list(1000) }, 'must hold at most 1000 entries (keys and list items, at every level)'],
    [{ a: { a: { a: { a: { a: { a: { a: { a: 1 } } } } } } } }, undefined],
    [{ a: { a: { a: { a: { a: { a: { a: { a: { a: 1 } } } } } } } } }, 'must nest at most 8 levels deep'],
    [{ s: 'é'.repeat(8200) }, 'must be at most 16384 bytes of JSON (got 16408)'],
  ])('%j → %s', (value, problem) => {
    expect(inputBoundsProblem(value)).toBe(problem);
  });
});
