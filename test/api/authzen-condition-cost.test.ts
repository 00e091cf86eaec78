// Conditions cannot stall the service: `matches()` runs on RE2 (linear time), every evaluation has a cost budget
// (a decision over it is a deny with a reason), request `context`/`properties` are bounded, and no request stalls
// the event loop for 50 ms or more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { longestStall } from '../helpers/event-loop.ts';

const PATTERN = "context.s.matches('^(a+)+$')";
const NESTED = 'context.l.all(x, context.l.all(y, x + y >= 0))';

const DOCS = Array.from({ length: 12 }, (_, i) => `d${i + 1}`);

let t: TestApp;
let pdp: Pdp;
beforeAll(async () => {
  t = await startTestApp();
  pdp = await authzenEnvironment(t, {
    users: [{ userName: 'alice' }],
    resourceTypes: [{ key: 'doc', actions: ['read', 'list'] }],
    resources: DOCS.map((id) => ({ type: 'doc', id })),
    roles: [
      { key: 'pattern', permissions: [{ type: 'doc', action: 'read', condition: PATTERN }] },
      { key: 'nested', permissions: [{ type: 'doc', action: 'list', condition: NESTED }] },
    ],
    assignments: [
      { role: 'pattern', user: 'alice' },
      { role: 'nested', user: 'alice' },
    ],
  });
  // The model is loaded (its conditions compiled) and each condition evaluated once before anything is timed.
  expect((await ask('read', { s: 'aaa' })).body).toMatchObject({ decision: true });
  for (const n of [5, 30, 40]) expect((await ask('list', { l: hostileList(n) })).body).toMatchObject({ decision: true });
});
afterAll(() => t?.close());

const entities = (action: string) => ({ subject: { type: 'user', id: 'alice' }, action: { name: action }, resource: { type: 'doc', id: 'd1' } });
const ask = (action: string, context: object) => pdp.post('evaluation', { ...entities(action), context, options: { explain: true } });
const health = () => t.app.inject({ method: 'GET', url: '/v1/health' });
const hostileList = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('hostile conditions', () => {
  it("decides context.s.matches('^(a+)+$') on a 29-character string in linear time: a deny, no stall", async () => {
    const { result, stallMs } = await longestStall(() => ask('read', { s: `${'a'.repeat(29)}!` }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      decision: false,
      context: { reason: { permitted: false, code: 'condition_not_met', failedConditions: [{ condition: PATTERN, role: 'pattern' }] } },
    });
    expect(stallMs).toBeLessThan(50);
  });

  it('denies nested all() over a 400-item context list with the cost limit as the reason, without stalling /v1/health', async () => {
    const { result, stallMs } = await longestStall(async () => {
      const [decision, healthy] = await Promise.all([ask('list', { l: hostileList(400) }), health()]);
      expect(healthy.statusCode).toBe(200);
      return decision;
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      decision: false,
      context: {
        reason: {
          permitted: false,
          code: 'cost_limit_exceeded',
          failedConditions: [{ condition: NESTED, role: 'nested', error: expect.stringContaining('cost limit') }],
        },
      },
    });
    expect(stallMs).toBeLessThan(50);
  });

  it('bounds a whole batch: once the request budget is spent, the remaining evaluations are denies with a reason, without a stall', async () => {
    // Each item fits its own condition budget (60 × 60 iterations); together they would hold the loop for seconds.
    const evaluations = Array.from({ length: 200 }, () => ({ context: { l: hostileList(60) } }));
    const { result, stallMs } = await longestStall(() => pdp.post('evaluations', { ...entities('list'), evaluations, options: { explain: true } }));
    expect(result.status).toBe(200);
    type Item = { decision: boolean; context: { reason: { code?: string; failedConditions?: { error: string }[] } } };
    const decisions = (result.body as { evaluations: Item[] }).evaluations;
    expect(decisions).toHaveLength(200);
    expect(decisions[0]).toMatchObject({ decision: true });
    const denied = decisions.filter((d) => !d.decision);
    expect(denied.length).toBeGreaterThan(190);
    for (const d of denied) {
      expect(d.context.reason).toMatchObject({
        code: 'cost_limit_exceeded',
        failedConditions: [{ error: expect.stringContaining('request exceeded its cost limit') }],
      });
    }
    expect(stallMs).toBeLessThan(50);
  });

  it('ends a search page where the request budget runs out, with a next_token that continues from there', async () => {
    // Each document costs ~30 000 units (60 × 60 iterations): a page affords a few of the twelve.
    const body = { subject: { type: 'user', id: 'alice' }, action: { name: 'list' }, resource: { type: 'doc' }, context: { l: hostileList(60) } };
    type Page = { results: { id: string }[]; page: { next_token: string } };
    const { result, stallMs } = await longestStall(() => pdp.post('search/resource', body));
    expect(result.status).toBe(200);
    const first = result.body as Page;
    expect(first.results.length).toBeGreaterThan(0);
    expect(first.results.length).toBeLessThan(DOCS.length);
    expect(first.page.next_token).not.toBe('');
    expect(stallMs).toBeLessThan(50);
    const found = first.results.map((r) => r.id);
    for (let token = first.page.next_token; token !== '';) {
      const next = (await pdp.post('search/resource', { ...body, page: { token } })).body as Page;
      found.push(...next.results.map((r) => r.id));
      token = next.page.next_token;
    }
    expect(found.sort()).toEqual([...DOCS].sort());
  });

  it('still permits what holds: RE2 matches() is a substring match', async () => {
    expect((await ask('read', { s: 'xaay' })).body).toMatchObject({ decision: false });
    expect((await ask('read', { s: 'aaaa' })).body).toMatchObject({ decision: true });
    for (const n of [5, 30, 40]) expect((await ask('list', { l: hostileList(n) })).body).toMatchObject({ decision: true });
  });
});

describe('request bounds on context and properties', () => {
  const deep = (n: number): object => (n === 0 ? {} : { a: deep(n - 1) });
  it.each([
    ['context bytes', { context: { s: 'x'.repeat(20_000) } }, 'body.context', 'must be at most 16384 bytes of JSON'],
    ['context entries', { context: { l: hostileList(1001) } }, 'body.context', 'must hold at most 1000 entries'],
    ['context depth', { context: deep(9) }, 'body.context', 'must nest at most 8 levels deep'],
    ['subject properties', { subject: { type: 'user', id: 'alice', properties: { s: 'x'.repeat(20_000) } } }, 'body.subject.properties', 'bytes'],
    ['resource properties', { resource: { type: 'doc', id: 'd1', properties: deep(9) } }, 'body.resource.properties', 'levels'],
    ['action properties', { action: { name: 'read', properties: { l: hostileList(1001) } } }, 'body.action.properties', 'entries'],
  ])('refuses oversized %s with a 400 naming the field', async (_what, change, path, message) => {
    const res = await pdp.post('evaluation', { ...entities('read'), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'request.invalid', details: [{ path, message: expect.stringContaining(message) }] });
  });

  it('bounds each batch item and search context too', async () => {
    const batch = await pdp.post('evaluations', { ...entities('read'), evaluations: [{}, { context: deep(9) }] });
    expect(batch).toMatchObject({ status: 400, body: { details: [{ path: 'body.evaluations.1.context' }] } });
    const search = await pdp.post('search/resource', { ...entities('read'), context: { l: hostileList(1001) } });
    expect(search).toMatchObject({ status: 400, body: { details: [{ path: 'body.context' }] } });
  });
});
