// Two API instances on one database grant one rate-limit budget, not two: a credential's requests, an address's
// requests and an address's failed authentications are counted across both, and either answers the 429 with the same
// shape and headers as one instance alone.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import type { App } from '../../api/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment } from '../helpers/authzen.ts';

let t: TestApp;
let second: App;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '6', RATE_LIMIT_AUTH_FAILURE_MAX: '4' });
  second = await buildApp({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey });
});
afterAll(async () => {
  await second.close();
  await t.close();
});

const EVALUATION = JSON.stringify({ subject: { type: 'user', id: 'alice' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } });
const MESSAGE = /^Rate limit of (\d+) requests per 1 minute exceeded; retry in (\d+) s\.$/;
/** The instances in turn: request i goes to the first when i is even. */
const turn = (i: number) => (i % 2 ? second : t.app);

const decide = (app: App, secret: string, remoteAddress = '127.0.0.1') =>
  app.inject({
    method: 'POST',
    url: '/access/v1/evaluation',
    remoteAddress,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: EVALUATION,
  });

type Answer = Awaited<ReturnType<typeof decide>>;

/** A 429 whose message, Retry-After and x-ratelimit headers state the limit and the wait. */
function expectLimited(res: Answer, max: number) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body.code).toBe('rate_limit.exceeded');
  const [, limit, retry] = MESSAGE.exec(body.error) ?? [];
  expect(Number(limit)).toBe(max);
  expect(res.headers).toMatchObject({ 'x-ratelimit-limit': String(max), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': retry, 'retry-after': retry });
  expect(Number(retry)).toBeGreaterThan(0);
  expect(Number(retry)).toBeLessThanOrEqual(60);
}

describe('rate limits across instances', () => {
  it('answers a secret limited to 5 a minute 5 times in all across both instances, then 429 from either', async () => {
    const pdp = await authzenEnvironment(t);
    await t.pool.query(sql.unsafe`UPDATE api_secrets SET rate_limit_per_minute = 5 WHERE id = ${pdp.secretId}`);
    const answers: Answer[] = [];
    for (let i = 0; i < 8; i++) answers.push(await decide(turn(i), pdp.secret));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // What is left of the shared budget, as the answering instance knows it: exact at the first and at the last.
    expect([answers[0]!.headers['x-ratelimit-remaining'], answers[4]!.headers['x-ratelimit-remaining']]).toEqual(['4', '0']);
    expectLimited(answers[5]!, 5); // from the second instance
    expectLimited(answers[6]!, 5); // from the first
    // Another secret keeps its own budget on both.
    const other = await authzenEnvironment(t);
    expect([(await decide(t.app, other.secret)).statusCode, (await decide(second, other.secret)).statusCode]).toEqual([200, 200]);
  });

  it('counts an address before authentication (RATE_LIMIT_MAX 6) across both instances', async () => {
    const jwks = (app: App) => app.inject({ method: 'GET', url: '/.well-known/jwks.json', remoteAddress: '203.0.113.9' });
    const answers: Answer[] = [];
    for (let i = 0; i < 9; i++) answers.push(await jwks(turn(i)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429]);
    expect(answers[0]!.headers).toMatchObject({ 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '5' });
    expectLimited(answers[6]!, 6); // from the first instance
    expectLimited(answers[7]!, 6); // from the second
    // Another address is not refused.
    expect((await second.inject({ method: 'GET', url: '/.well-known/jwks.json', remoteAddress: '203.0.113.10' })).statusCode).toBe(200);
  });

  it('counts failed authentications of an address across both instances: both refuse once the shared count is full', async () => {
    const address = '198.51.100.77';
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) seen.push((await decide(turn(i), `adenv_${'x'.repeat(40)}`, address)).statusCode);
    // 4 failures in all (an instance that has not yet heard of the other's last failure may let one more through).
    const failures = seen.filter((s) => s === 401).length;
    expect(failures).toBeGreaterThanOrEqual(4);
    expect(failures).toBeLessThanOrEqual(5);
    expect(seen.slice(-4)).toEqual([429, 429, 429, 429]);
    for (const app of [t.app, second]) {
      const refused = await decide(app, 'adenv_nope', address);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toMatch(/^Too many failed authentications from this address: at most 4 per 1 minute; retry in \d+ s\.$/);
    }
  });
});
