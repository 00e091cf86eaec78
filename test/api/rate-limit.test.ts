import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
});
afterAll(() => t.close());

describe('rate limiting', () => {
  it('counts per principal, sends x-ratelimit headers, and answers 429 with Retry-After', async () => {
    const token = await t.token(); // the token request counts against the IP, not the principal
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(token) });
      statuses.push(res.statusCode);
      if (i === 0) expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': expect.any(String) });
      if (i === 3) {
        expect(res.headers['retry-after']).toEqual(expect.any(String));
        expect(res.json()).toMatchObject({ code: 'rate_limit.exceeded', requestId: expect.any(String) });
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another principal (the PAT's user) has its own budget.
    expect((await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(t.credentials.personalAccessToken) })).statusCode).toBe(200);
  });
});
