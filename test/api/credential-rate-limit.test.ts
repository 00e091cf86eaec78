// Rate limits of the routes authenticated by an environment credential (adenv_, adscim_, adhris_): counted per
// credential, never per address; failed authentications in a bucket of their own per address; a per-secret setting.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment } from '../helpers/authzen.ts';
import { scim, scimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_MAX: '30',
    RATE_LIMIT_WINDOW_MS: '60000',
    RATE_LIMIT_API_SECRET_MAX: '40',
    RATE_LIMIT_PROVISIONING_TOKEN_MAX: '20',
    RATE_LIMIT_AUTH_FAILURE_MAX: '5',
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  });
});
afterAll(() => t.close());

const EVALUATION = { subject: { type: 'user', id: 'alice' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } };
const MESSAGE = /^Rate limit of (\d+) requests per 1 minute exceeded; retry in (\d+) s\.$/;

const decide = (secret: string, remoteAddress = '127.0.0.1') =>
  t.app.inject({
    method: 'POST',
    url: '/access/v1/evaluation',
    remoteAddress,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: JSON.stringify(EVALUATION),
  });

async function statuses(n: number, send: () => Promise<{ statusCode: number }>) {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await send()).statusCode);
  return seen;
}

/** A 429 whose message, Retry-After and x-ratelimit headers state the window; returns the seconds to wait. */
function expectLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): { error: string; code: string } }, max: number) {
  expect(res.statusCode).toBe(429);
  expect(res.json().code).toBe('rate_limit.exceeded');
  const [, limit, retry] = MESSAGE.exec(res.json().error) ?? [];
  expect(Number(limit)).toBe(max);
  expect(res.headers['retry-after']).toBe(retry);
  expect(Number(retry)).toBeGreaterThan(0);
  expect(Number(retry)).toBeLessThanOrEqual(60);
}

describe('rate limits per credential', () => {
  it('a flood of bad secrets from one address does not 429 an authenticated PEP from the same address', async () => {
    const pdp = await authzenEnvironment(t);
    const address = '198.51.100.40';
    expect((await decide(pdp.secret, address)).statusCode).toBe(200);
    const flood = await statuses(40, () => decide(`adenv_${'x'.repeat(40)}`, address));
    expect(flood.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(flood.slice(5))).toEqual(new Set([429]));
    const refused = await decide('adenv_nope', address);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatch(/^Too many failed authentications from this address: at most 5 per 1 minute; retry in \d+ s\.$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Missing and malformed credentials count as failures too.
    const missing = await t.app.inject({ method: 'POST', url: '/access/v1/evaluation', remoteAddress: address, payload: EVALUATION });
    expect(missing.statusCode).toBe(429);

    expect(new Set(await statuses(35, () => decide(pdp.secret, address)))).toEqual(new Set([200]));
    // Another address's failures are its own.
    expect((await decide('adenv_nope', '198.51.100.41')).statusCode).toBe(401);
  });

  it('counts two credentials behind one address in separate buckets, and states the window in the 429', async () => {
    const [a, b] = [await authzenEnvironment(t), await authzenEnvironment(t)];
    const address = '198.51.100.42';
    const first = await decide(a.secret, address);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '39', 'x-ratelimit-reset': expect.any(String) });
    expect(new Set(await statuses(39, () => decide(a.secret, address)))).toEqual(new Set([200]));
    expectLimited(await decide(a.secret, address), 40);
    expect(new Set(await statuses(20, () => decide(b.secret, address)))).toEqual(new Set([200]));
    // The general per-address limit (30) does not apply to credential routes either way.
    expect((await decide(b.secret)).statusCode).toBe(200);
  });

  it('does not throttle SCIM because of AuthZEN traffic from the same address', async () => {
    const pdp = await authzenEnvironment(t);
    const idp = await scimEnvironment(t);
    await statuses(41, () => decide(pdp.secret));
    expect((await decide(pdp.secret)).statusCode).toBe(429);
    const users = await statuses(20, async () => ({ statusCode: (await scim(t, idp.token, 'GET', '/Users')).status }));
    expect(new Set(users)).toEqual(new Set([200]));
    const limited = await scim(t, idp.token, 'GET', '/Users');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
  });

  it('applies the rateLimitPerMinute of an API secret, changed at once on every request after an update', async () => {
    const pdp = await authzenEnvironment(t);
    const token = await t.token();
    const base = `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/api-secrets`;
    const call = (method: 'POST' | 'PATCH', url: string, payload: object) => t.app.inject({ method, url, headers: bearer(token), payload });
    const invalid = await call('POST', base, { name: 'PEP', purposes: ['authzen'], rateLimitPerMinute: 0 });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().details).toEqual([{ path: 'body.rateLimitPerMinute', message: expect.any(String) }]);

    const created = await call('POST', base, { name: 'PEP', purposes: ['authzen'], rateLimitPerMinute: 3 });
    expect(created.statusCode).toBe(201);
    const { apiSecret, secret } = created.json();
    expect(apiSecret.rateLimitPerMinute).toBe(3);
    expect(await statuses(3, () => decide(secret))).toEqual([200, 200, 200]);
    expectLimited(await decide(secret), 3);

    const raised = await call('PATCH', `${base}/${apiSecret.id}`, { rateLimitPerMinute: 100 });
    expect(raised.statusCode).toBe(200);
    expect(raised.json().apiSecret.rateLimitPerMinute).toBe(100);
    expect((await decide(secret)).headers['x-ratelimit-limit']).toBe('100');

    const reset = await call('PATCH', `${base}/${apiSecret.id}`, { rateLimitPerMinute: null });
    expect(reset.json().apiSecret.rateLimitPerMinute).toBeNull();
    expect((await decide(secret)).headers['x-ratelimit-limit']).toBe('40');
  });

  it('applies the rateLimitPerMinute a provisioning token is created with', async () => {
    const idp = await scimEnvironment(t);
    const created = await t.app.inject({
      method: 'POST',
      url: `${idp.base}/provisioning-tokens`,
      headers: bearer(await t.token()),
      payload: { name: 'Okta', kind: 'scim', rateLimitPerMinute: 2 },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().provisioningToken.rateLimitPerMinute).toBe(2);
    const token = created.json().token as string;
    expect((await scim(t, token, 'GET', '/Users')).status).toBe(200);
    expect((await scim(t, token, 'GET', '/Users')).status).toBe(200);
    const limited = await scim(t, token, 'GET', '/Users');
    expect(limited.status).toBe(429);
    expect(JSON.stringify(limited.body)).toMatch(/Rate limit of 2 requests per 1 minute exceeded; retry in \d+ s\./);
    // The environment's other token keeps its own budget.
    expect((await scim(t, idp.token, 'GET', '/Users')).status).toBe(200);
  });

  it('counts Slack interactivity per channel once signed, and bad signatures per address', async () => {
    const SIGNING_SECRET = 'slack-signing-secret-of-the-test';
    const created = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: bearer(await t.token()),
      payload: {
        kind: 'slack',
        name: 'Approvals',
        eventTypes: ['tenant.deleted'],
        secrets: { webhookUrl: 'http://127.0.0.1:9/services/T0/B0/X', signingSecret: SIGNING_SECRET },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const channelId = created.json().channel.id as string;
    // A click on no approval button: verified and answered 200, deciding nothing.
    const payload = { type: 'block_actions', user: { id: 'U0SOMEONE' }, actions: [{ action_id: 'other' }], response_url: 'http://127.0.0.1:9/r' };
    const post = (remoteAddress: string, secret = SIGNING_SECRET) => {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
      return t.app.inject({
        method: 'POST',
        url: `/v1/integrations/slack/interactivity/${channelId}`,
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature },
        payload: body,
      });
    };
    const attacker = '203.0.113.60';
    const slack = '203.0.113.61';
    expect(await statuses(7, () => post(attacker, 'not-the-secret'))).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Slack itself, from its own address, is not refused; beyond the general 30 a minute it is counted per channel.
    expect(new Set(await statuses(30, () => post(slack)))).toEqual(new Set([200]));
    expectLimited(await post(slack), 30);
  });
});
