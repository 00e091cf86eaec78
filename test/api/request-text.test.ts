// Strings Postgres cannot store (U+0000, unpaired UTF-16 surrogates) and bodies nested beyond any shape of the API are
// refused with a 400 naming the field, on every route, before anything reaches the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
});
afterAll(() => t.close());

const json = () => ({ ...bearer(admin), 'content-type': 'application/json' });
const invalid = (path: string, message: string) => ({
  error: `Invalid request: ${path} ${message}.`,
  code: 'request.invalid',
  requestId: expect.any(String),
  details: [{ path, message }],
});
const tenantCount = async () => (await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(admin) })).json().total as number;

describe('text Postgres cannot store', () => {
  it.each([
    ['a NUL in a name', '{"name":"a\\u0000b"}', 'body.name', 'must not contain U+0000 (NUL)'],
    ['a NUL in a free-text description', '{"name":"ok","description":"line\\u0000"}', 'body.description', 'must not contain U+0000 (NUL)'],
    ['an unpaired surrogate in a name', '{"name":"a\\ud800b"}', 'body.name', 'must not contain an unpaired UTF-16 surrogate'],
    ['a lone low surrogate in a description', '{"name":"ok","description":"\\udc00"}', 'body.description', 'must not contain an unpaired UTF-16 surrogate'],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_name, payload, path, message) => {
    const before = await tenantCount();
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: json(), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalid(path, message));
    expect(await tenantCount()).toBe(before);
  });

  it('accepts a well-formed surrogate pair (an emoji)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: json(), payload: '{"name":"Rocket \\ud83d\\ude80"}' });
    expect(res.statusCode).toBe(201);
    expect(res.json().tenant.name).toBe('Rocket 🚀');
  });

  it('refuses an unpaired surrogate in a field stored as JSON (a channel config)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: json(),
      payload: '{"kind":"pagerduty","name":"On call","eventTypes":["*"],"config":{"source":"iam\\ud800"},"secrets":{"routingKey":"rk"}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalid('body.config.source', 'must not contain an unpaired UTF-16 surrogate'));
  });

  it('refuses a field name holding a NUL, escaped in the path', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: json(),
      payload: '{"kind":"pagerduty","name":"On call","eventTypes":["*"],"config":{"sou\\u0000rce":"iam"},"secrets":{"routingKey":"rk"}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalid('body.config.sou\\u0000rce', 'is a field name containing U+0000 (NUL)'));
  });

  it('refuses a NUL in a query parameter (audit log filter)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${t.credentials.tenantId}/audit-logs?action=%00`, headers: bearer(admin) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalid('querystring.action', 'must not contain U+0000 (NUL)'));
  });

  it('still answers 401 first to a caller without a token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: { 'content-type': 'application/json' }, payload: '{"name":"a\\u0000"}' });
    expect(res.statusCode).toBe(401);
  });

  it('answers the token endpoint in RFC 6749 form: a NUL in a form field and in a JSON field', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=a%00b&client_secret=x',
    });
    expect(form.statusCode).toBe(400);
    expect(form.json()).toEqual({ error: 'invalid_request', error_description: 'Invalid request: body.client_id must not contain U+0000 (NUL).' });
    expect(form.headers['cache-control']).toBe('no-store');
    const body = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: t.credentials.clientId, client_secret: 'adsa_\u0000' },
    });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toEqual({ error: 'invalid_request', error_description: 'Invalid request: body.client_secret must not contain U+0000 (NUL).' });
  });
});

describe('deeply nested and large bodies', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it.each([33, 100_000])('refuses a body nested %i levels deep with 400 naming the top field', async (depth) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: json(),
      payload: `{"kind":"slack","name":"x","eventTypes":["*"],"config":{"channelLabel":${nested(depth)}},"secrets":{}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(invalid('body.config', 'is nested more than 32 levels deep'));
  });

  it('refuses deep nesting in an ignored token parameter in RFC 6749 form', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: `{"extra":${nested(50_000)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'Invalid request: body.extra is nested more than 32 levels deep.' });
  });

  it('names at most ten problems of a body full of them', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: json(),
      payload: JSON.stringify({ name: 'x', description: null, many: Array.from({ length: 50_000 }, () => '\u0000') }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toHaveLength(10);
    expect(res.json().details[0]).toEqual({ path: 'body.many.0', message: 'must not contain U+0000 (NUL)' });
  });

  it('answers 413 to a body over 1 MiB on the token endpoint too, never 500', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'client_credentials', pad: 'x'.repeat(1024 * 1024) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is larger than the 1 MiB limit.' });
  });
});
