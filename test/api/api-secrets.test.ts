// Environment API secrets (adenv_…): shown once, listed by prefix and hint, rotated with a grace period, revoked
// on every instance. Whether a secret works is asked of POST /access/v1/evaluation (200, 401 or 403 only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import type { App } from '../../api/types.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
  base = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/api-secrets`;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const api = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const evaluate = (secret: string, app: App = t.app) =>
  app.inject({
    method: 'POST',
    url: '/access/v1/evaluation',
    headers: bearer(secret),
    payload: { subject: { type: 'user', id: 'u' }, action: { name: 'read' }, resource: { type: 'doc', id: 'd' } },
  });
const works = async (secret: string, app: App = t.app) => (await evaluate(secret, app)).statusCode;

async function createSecret(body: object = {}, url = base) {
  const res = await api('POST', url, { name: 'AuthZEN gateway', purposes: ['authzen'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { apiSecret: Record<string, unknown> & { id: string; prefix: string; hint: string }; secret: string };
}

const inSeconds = (iso: unknown) => (Date.parse(iso as string) - Date.now()) / 1000;

describe('environment API secrets', () => {
  it('creates a secret shown once, usable at once, read and listed by its prefix and hint only', async () => {
    const { apiSecret, secret } = await createSecret({ description: 'The gateway of the shop', purposes: ['authzen', 'mcp'] });
    expect(secret).toMatch(/^adenv_[0-9A-Za-z]{49}$/);
    expect(apiSecret).toEqual({
      id: expect.any(String),
      environmentId: t.credentials.environmentId,
      name: 'AuthZEN gateway',
      description: 'The gateway of the shop',
      purposes: ['authzen', 'mcp'],
      prefix: secret.slice(0, 'adenv_'.length + 8),
      hint: secret.slice(-4),
      expiresAt: null,
      lastUsedAt: null,
      previousSecretExpiresAt: null,
      revokedAt: null,
      rateLimitPerMinute: null,
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    expect(await works(secret)).toBe(200);

    const read = await api('GET', `${base}/${apiSecret.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(secret);
    expect(read.json().apiSecret).toMatchObject({ id: apiSecret.id, prefix: apiSecret.prefix, hint: apiSecret.hint });
    const list = await api('GET', base, undefined);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(secret);
    expect(list.json()).toMatchObject({ total: expect.any(Number), hasMore: false, nextCursor: null });
    expect(list.json().apiSecrets.map((s: { id: string }) => s.id)).toContain(apiSecret.id);

    await expect
      .poll(async () => (await api('GET', `${base}/${apiSecret.id}`)).json().apiSecret.lastUsedAt, { timeout: 5000, interval: 50 })
      .toEqual(expect.any(String));
  });

  it.each([
    [{ purposes: undefined }, 'body.purposes'],
    [{ purposes: [] }, 'body.purposes', 'must name at least one purpose'],
    [{ purposes: ['authzen', 'authzen'] }, 'body.purposes', 'must not repeat a purpose'],
    [{ purposes: ['authzen', 'mcp', 'authzen'] }, 'body.purposes'],
    [{ purposes: ['admin'] }, 'body.purposes.0'],
    [{ purposes: null }, 'body.purposes'],
    [{ name: '  ' }, 'body.name', 'must not be empty'],
    [{ expiresAt: '2001-01-01T00:00:00Z' }, 'body.expiresAt', 'must be in the future'],
    [{ expiresAt: 'tomorrow' }, 'body.expiresAt', 'must be an ISO 8601 date-time'],
    [{ secret: 'adenv_mine' }, 'body.secret', 'is not a known field'],
  ])('refuses %j with a 400 naming %s', async (body, path, message?: string) => {
    const res = await api('POST', base, { name: 'x', purposes: ['authzen'], ...body });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path, message: message ?? expect.any(String) }]);
  });

  it('refuses a secret for a purpose it was not created for (403), and an unknown or malformed one (401)', async () => {
    const { secret } = await createSecret({ purposes: ['mcp'] });
    const res = await evaluate(secret);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('auth.secret_purpose');

    const unknown = `adenv_${'0'.repeat(49)}`;
    for (const value of [unknown, secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A')]) {
      const refused = await evaluate(value);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().code).toBe('auth.invalid_secret');
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="iam", error="invalid_token"/);
    }
  });

  it('renames and describes a secret, and refuses changes to anything else', async () => {
    const { apiSecret } = await createSecret();
    const res = await api('PATCH', `${base}/${apiSecret.id}`, { name: 'Renamed', description: 'Now described' });
    expect(res.statusCode).toBe(200);
    expect(res.json().apiSecret).toMatchObject({ ...apiSecret, name: 'Renamed', description: 'Now described', updatedAt: expect.any(String) });
    const purposes = await api('PATCH', `${base}/${apiSecret.id}`, { purposes: ['mcp'] });
    expect(purposes.statusCode).toBe(400);
    expect(purposes.json().details).toEqual([{ path: 'body.purposes', message: 'is not a known field' }]);
  });

  it('rotates with no grace: the previous value is refused at once, the new one works', async () => {
    const { apiSecret, secret: old } = await createSecret();
    expect(await works(old)).toBe(200);
    const res = await api('POST', `${base}/${apiSecret.id}/rotate`, { gracePeriodSeconds: 0 });
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(rotated.secret).toMatch(/^adenv_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.apiSecret).toMatchObject({ id: apiSecret.id, prefix: rotated.secret.slice(0, 14), hint: rotated.secret.slice(-4) });
    expect(rotated.apiSecret.previousSecretExpiresAt).toBeNull();

    const refused = await evaluate(old);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('auth.invalid_secret');
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(await works(rotated.secret)).toBe(200);
  });

  it('rotates with a grace period: both values work until it ends, then only the new one', async () => {
    const { apiSecret, secret: old } = await createSecret();
    expect(await works(old)).toBe(200);
    const long = (await api('POST', `${base}/${apiSecret.id}/rotate`, { gracePeriodSeconds: 3600 })).json();
    expect(inSeconds(long.apiSecret.previousSecretExpiresAt)).toBeGreaterThan(3500);
    expect(await works(old)).toBe(200);
    expect(await works(long.secret)).toBe(200);

    // Rotating again ends the first value at once; the second gets its own (short) grace period.
    const short = (await api('POST', `${base}/${apiSecret.id}/rotate`, { gracePeriodSeconds: 1 })).json();
    expect(await works(old)).toBe(401);
    expect(await works(short.secret)).toBe(200);
    await expect.poll(() => works(long.secret), { timeout: 10_000, interval: 100 }).toBe(401);
    expect(await works(short.secret)).toBe(200);
  });

  it('rotates without a body with API_SECRET_ROTATION_GRACE (24 h), and refuses a grace period beyond 30 days', async () => {
    const { apiSecret, secret: old } = await createSecret();
    const res = await t.app.inject({ method: 'POST', url: `${base}/${apiSecret.id}/rotate`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(inSeconds(res.json().apiSecret.previousSecretExpiresAt)).toBeGreaterThan(24 * 3600 - 60);
    expect(await works(old)).toBe(200);

    const tooLong = await api('POST', `${base}/${apiSecret.id}/rotate`, { gracePeriodSeconds: 2_592_001 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().details[0].path).toBe('body.gracePeriodSeconds');
  });

  it('revokes on every instance, idempotently, and refuses to rotate a revoked secret', async () => {
    // Another instance over the same database, with its own cache of secrets and its own LISTEN connection.
    const second = await buildApp({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey });
    try {
      const { apiSecret, secret } = await createSecret();
      expect(await works(secret, second)).toBe(200); // cached on the second instance
      const res = await api('POST', `${base}/${apiSecret.id}/revoke`);
      expect(res.statusCode).toBe(200);
      expect(res.json().apiSecret).toMatchObject({ id: apiSecret.id, active: false, revokedAt: expect.any(String) });
      expect(await works(secret)).toBe(401);
      await expect.poll(() => works(secret, second), { timeout: 5000, interval: 20 }).toBe(401);
      expect((await evaluate(secret, second)).json()).toMatchObject({ code: 'auth.invalid_secret', error: expect.stringMatching(/revoked/) });

      const again = await api('POST', `${base}/${apiSecret.id}/revoke`);
      expect(again.statusCode).toBe(200);
      expect(again.json().apiSecret).toEqual(res.json().apiSecret);
      const revoked = (await tenantEvents(t, tenantId, { type: 'api_secret.revoked' })).filter((e) => e.subject?.id === apiSecret.id);
      expect(revoked).toHaveLength(1);

      const rotate = await api('POST', `${base}/${apiSecret.id}/rotate`, {});
      expect(rotate.statusCode).toBe(409);
      expect(rotate.json().code).toBe('api_secret.revoked');
    } finally {
      await second.close();
    }
  });

  it('refuses a secret once it has expired, and will not rotate it', async () => {
    const { apiSecret, secret } = await createSecret({ expiresAt: new Date(Date.now() + 3000).toISOString() });
    expect(apiSecret.expiresAt).toEqual(expect.any(String));
    expect(await works(secret)).toBe(200);
    await expect.poll(() => works(secret), { timeout: 10_000, interval: 100 }).toBe(401);
    expect((await evaluate(secret)).json().error).toMatch(/expired/);
    expect((await api('GET', `${base}/${apiSecret.id}`)).json().apiSecret.active).toBe(false);
    const rotate = await api('POST', `${base}/${apiSecret.id}/rotate`, {});
    expect(rotate.statusCode).toBe(409);
    expect(rotate.json().code).toBe('api_secret.expired');
  });

  it('deletes a secret: it is refused from the next request and gone', async () => {
    const { apiSecret, secret } = await createSecret();
    expect(await works(secret)).toBe(200);
    const res = await api('DELETE', `${base}/${apiSecret.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, id: apiSecret.id });
    expect(await works(secret)).toBe(401);
    const gone = await api('GET', `${base}/${apiSecret.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('api_secret.not_found');
  });

  it("answers 404 for a secret of another environment, and for another organization's tenant", async () => {
    const project = (await api('POST', `/v1/tenants/${tenantId}/projects`, { name: 'Other app' })).json().project;
    const otherBase = `/v1/tenants/${tenantId}/environments/${project.environments[0].id}/api-secrets`;
    const { apiSecret } = await createSecret({}, otherBase);
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['POST', '/rotate'],
      ['POST', '/revoke'],
      ['DELETE', ''],
    ] as const) {
      const res = await api(method, `${base}/${apiSecret.id}${suffix}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.statusCode, `${method} ${suffix}`).toBe(404);
      expect(res.json().code).toBe('api_secret.not_found');
    }
    expect((await api('GET', base)).json().apiSecrets.map((s: { id: string }) => s.id)).not.toContain(apiSecret.id);

    const other = await otherOrganization(t);
    for (const url of [base, `${otherBase}/${apiSecret.id}`]) {
      const res = await api('GET', url, undefined, other.token);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
  });

  it('needs api-secrets:write to change secrets, api-secrets:read to read them', async () => {
    const reader = await t.token('api-secrets:read');
    expect((await api('GET', base, undefined, reader)).statusCode).toBe(200);
    const create = await api('POST', base, { name: 'x', purposes: ['authzen'] }, reader);
    expect(create.statusCode).toBe(403);
  });

  it('records an audit entry and an event for every change, never with the secret', async () => {
    const { apiSecret, secret } = await createSecret();
    await api('PATCH', `${base}/${apiSecret.id}`, { description: 'audited' });
    const rotated = (await api('POST', `${base}/${apiSecret.id}/rotate`, { gracePeriodSeconds: 60 })).json();
    await api('POST', `${base}/${apiSecret.id}/revoke`);
    await api('DELETE', `${base}/${apiSecret.id}`);

    const events = (await tenantEvents(t, tenantId)).filter((e) => e.subject?.id === apiSecret.id);
    expect(events.map((e) => e.type)).toEqual(['api_secret.created', 'api_secret.updated', 'api_secret.rotated', 'api_secret.revoked', 'api_secret.deleted']);
    for (const event of events) {
      expect(event).toMatchObject({ tenantId, environmentId: t.credentials.environmentId, subject: { type: 'api_secret', id: apiSecret.id } });
      expect(event.data.apiSecret).toMatchObject({ id: apiSecret.id, prefix: expect.stringMatching(/^adenv_/) });
    }
    expect(events[2]!.data.apiSecret).toMatchObject({ hint: rotated.secret.slice(-4), previousSecretExpiresAt: expect.any(String) });

    const entries = await auditEntries(t, { tenantId }, { resourceId: apiSecret.id });
    expect(entries.map((e) => e.action)).toEqual(['api_secret.create', 'api_secret.update', 'api_secret.rotate', 'api_secret.revoke', 'api_secret.delete']);
    expect(entries[1]!.changes).toMatchObject({ before: { description: null }, after: { description: 'audited' } });
    for (const value of [secret, rotated.secret]) {
      expect(JSON.stringify(events)).not.toContain(value);
      expect(JSON.stringify(entries)).not.toContain(value);
    }
  });
});
