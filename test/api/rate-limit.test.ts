import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let proxied: TestApp;
const limited = { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' };
beforeAll(async () => {
  t = await startTestApp(limited);
  // The app sees every request from 127.0.0.1 (app.inject), as it would from a reverse proxy on the same host.
  proxied = await startTestApp({ ...limited, TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => Promise.all([t.close(), proxied.close()]));

const badToken = (app: TestApp, headers: Record<string, string> = {}, remoteAddress?: string) =>
  app.app.inject({ method: 'GET', url: '/v1/tenants', headers: { ...bearer('not-a-token'), ...headers }, ...(remoteAddress ? { remoteAddress } : {}) });

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

describe('rate limiting per address', () => {
  it('never limits /v1/health, and answers the token endpoint in RFC 6749 form with Retry-After', async () => {
    const address = '198.51.100.7';
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await badToken(t, {}, address)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);

    for (let i = 0; i < 5; i++) {
      const health = await t.app.inject({ method: 'GET', url: '/v1/health', remoteAddress: address });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ ok: true });
    }

    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      remoteAddress: address,
      payload: { grant_type: 'client_credentials', client_id: t.credentials.clientId, client_secret: t.credentials.clientSecret },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      error: 'rate_limited',
      error_description: expect.stringMatching(/^Rate limit of 3 requests per 1 minute exceeded; retry in \d+ s\.$/),
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy', async () => {
    const address = '198.51.100.8';
    for (let i = 0; i < 3; i++) await badToken(t, { 'x-forwarded-for': `203.0.113.${i}` }, address);
    expect((await badToken(t, { 'x-forwarded-for': '203.0.113.99' }, address)).statusCode).toBe(429);
  });

  it('tells the clients of a trusted proxy apart, in rate limits and in the audit log', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await badToken(proxied, { 'x-forwarded-for': '203.0.113.10' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await badToken(proxied, { 'x-forwarded-for': '203.0.113.11' })).statusCode).toBe(401);

    const pat = bearer(proxied.credentials.personalAccessToken);
    const created = await proxied.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: { ...pat, 'x-forwarded-for': '203.0.113.12' },
      payload: { name: 'Proxied' },
    });
    expect(created.statusCode).toBe(201);
    const { auditLogs } = (
      await proxied.app.inject({ method: 'GET', url: `/v1/tenants/${created.json().tenant.id}/audit-logs?action=tenant.create`, headers: pat })
    ).json();
    expect(auditLogs.map((entry: { ip: string }) => entry.ip)).toEqual(['203.0.113.12']);
  });

  it('with a hop count, trusts that many proxies and no more', async () => {
    const hops = await startTestApp({ TRUST_PROXY: '1' });
    try {
      const pat = bearer(hops.credentials.personalAccessToken);
      const headers = { ...pat, 'x-forwarded-for': '203.0.113.1, 198.51.100.20' };
      const created = await hops.app.inject({ method: 'POST', url: '/v1/tenants', headers, payload: { name: 'Two hops' } });
      const { auditLogs } = (await hops.app.inject({ method: 'GET', url: `/v1/tenants/${created.json().tenant.id}/audit-logs`, headers: pat })).json();
      expect(auditLogs.map((entry: { ip: string }) => entry.ip)).toEqual(['198.51.100.20']);
    } finally {
      await hops.close();
    }
  });
});
