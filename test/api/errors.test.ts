import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
});
afterAll(() => t.close());

const errorShape = { error: expect.any(String), code: expect.any(String), requestId: expect.any(String) };

describe('error responses', () => {
  it('names every unknown field and every invalid field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(admin), payload: { name: '', colour: 'red', size: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ...errorShape, code: 'request.invalid' });
    expect(res.json().details).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: 'must not be empty' },
        { path: 'body.colour', message: 'is not a known field' },
        { path: 'body.size', message: 'is not a known field' },
      ]),
    );
    const list = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(admin) });
    expect(list.json().total).toBe(1); // nothing was created
  });

  it('validates query and path parameters by name', async () => {
    const limit = await t.app.inject({ method: 'GET', url: '/v1/tenants?limit=500', headers: bearer(admin) });
    expect(limit.statusCode).toBe(400);
    expect(limit.json().details[0].path).toBe('querystring.limit');
    const id = await t.app.inject({ method: 'GET', url: '/v1/tenants/not-a-uuid', headers: bearer(admin) });
    expect(id.statusCode).toBe(400);
    expect(id.json().details[0].path).toBe('params.tenantId');
  });

  it('answers a path parameter that is not valid percent-encoding with 400 in the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants/%FF', headers: { ...bearer(admin), 'x-request-id': 'bad-url-1' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ ...errorShape, code: 'request.bad_url', requestId: 'bad-url-1' });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: { ...bearer(admin), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ...errorShape, code: 'request.malformed_json' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(admin), payload: { name: 'x'.repeat(1024 * 1024 + 10) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ ...errorShape, code: 'request.too_large' });
  });

  it('answers an unsupported media type with 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: { ...bearer(admin), 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ ...errorShape, code: 'request.unsupported_media_type' });
  });

  it('answers unknown routes with a JSON 404 and known paths with another method with 405', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ ...errorShape, code: 'route.not_found' });
    const wrong = await t.app.inject({ method: 'PUT', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(admin) });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, PATCH, DELETE');
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const generated = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.json().requestId).toBe(generated.headers['x-request-id']);
  });

  it('masks internal errors as 500 without details', async () => {
    const broken = await startTestApp();
    try {
      await broken.pool.query(sql.unsafe`ALTER TABLE organization_tenants RENAME TO organization_tenants_gone`);
      const res = await broken.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(await broken.token()) });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: expect.not.stringMatching(/organization_tenants|relation|sql/i),
        code: 'internal.error',
        requestId: expect.any(String),
      });
    } finally {
      await broken.close();
    }
  });
});

describe('GET /v1/health', () => {
  it('is public and reports ok', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('reports 503 when the database is unreachable', async () => {
    const down = await startTestApp();
    await down.pool.end();
    const res = await down.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ ok: false });
    await down.app.close();
  });
});
