// An environment's password policy: GET and PUT …/settings/password-policy (environment-settings scope).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let e: RbacEnvironment;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
beforeEach(async () => {
  e = await rbacEnvironment(t, token);
  url = `/v1/tenants/${tenantId}/environments/${e.environmentId}/settings/password-policy`;
});
afterAll(() => t.close());

const call = (method: 'GET' | 'PUT', payload?: unknown, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload !== undefined ? { payload: payload as object } : {}) });
const UNSAVED = { passwordAuthEnabled: true, policy: null };
const DEFAULTS = { minLength: 8, requireLowercase: false, requireUppercase: false, requireNumber: false, requireSymbol: false, passwordAuthEnabled: true };
const stamp = expect.stringMatching(/Z$/);

describe('…/settings/password-policy', () => {
  it('answers no policy until saved, replaces it whole, and records password_policy.updated with what was before', async () => {
    expect((await call('GET', undefined, await t.token('environment-settings:read'))).json()).toEqual(UNSAVED);

    const body = { minLength: 12, requireLowercase: true, requireUppercase: true, requireNumber: true, requireSymbol: true, passwordAuthEnabled: true };
    const saved = await call('PUT', body, await t.token('environment-settings:write'));
    expect(saved.statusCode, saved.body).toBe(200);
    const fields = { minLength: 12, requireLowercase: true, requireUppercase: true, requireNumber: true, requireSymbol: true };
    expect(saved.json()).toEqual({ passwordAuthEnabled: true, policy: { id: expect.any(String), ...fields, createdAt: stamp, updatedAt: stamp } });
    expect((await call('GET')).json()).toEqual(saved.json());

    // A key left out takes its default; the row (its id, createdAt) stays.
    const replaced = await call('PUT', { passwordAuthEnabled: false });
    expect(replaced.statusCode, replaced.body).toBe(200);
    const defaults = { minLength: 8, requireLowercase: false, requireUppercase: false, requireNumber: false, requireSymbol: false };
    expect(replaced.json()).toEqual({
      passwordAuthEnabled: false,
      policy: { ...defaults, id: saved.json().policy.id, createdAt: saved.json().policy.createdAt, updatedAt: stamp },
    });

    const events = (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type === 'password_policy.updated');
    expect(events.map((ev) => [ev.subject, ev.data])).toEqual([
      [
        { type: 'environment', id: e.environmentId },
        { environmentId: e.environmentId, settings: body, previous: DEFAULTS },
      ],
      [
        { type: 'environment', id: e.environmentId },
        { environmentId: e.environmentId, settings: { ...DEFAULTS, passwordAuthEnabled: false }, previous: body },
      ],
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'password_policy.update', resourceId: e.environmentId });
    expect(audit.map((a) => a.changes)).toEqual([
      { before: { ...defaults, minLength: 8 }, after: fields }, // only what changed
      { before: body, after: { ...DEFAULTS, passwordAuthEnabled: false } },
    ]);
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const cases: [unknown, string][] = [
      [{ minLength: 7 }, 'body.minLength'],
      [{ minLength: 257 }, 'body.minLength'],
      [{ minLength: 10.5 }, 'body.minLength'],
      [{ minLength: '12' }, 'body.minLength'],
      [{ requireSymbol: 'yes' }, 'body.requireSymbol'],
      [{ passwordAuthEnabled: null }, 'body.passwordAuthEnabled'],
      [{ maxLength: 64 }, 'body.maxLength'],
    ];
    for (const [body, path] of cases) {
      const res = await call('PUT', body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({
        error: expect.any(String),
        code: 'request.invalid',
        requestId: expect.any(String),
        details: [{ path, message: expect.any(String) }],
      });
    }
    expect((await call('PUT', { minLength: 8 })).statusCode).toBe(200);
    expect((await call('PUT', { minLength: 256 })).statusCode).toBe(200);
  });

  it('needs the environment-settings scope and answers 404 to another organization', async () => {
    expect((await call('GET', undefined, await t.token('directory:write'))).statusCode).toBe(403);
    expect((await call('PUT', { minLength: 12 }, await t.token('environment-settings:read'))).statusCode).toBe(403);
    const other = (await otherOrganization(t)).token;
    for (const res of [await call('GET', undefined, other), await call('PUT', { minLength: 12 }, other)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    expect((await call('GET')).json()).toEqual(UNSAVED);
  });
});
