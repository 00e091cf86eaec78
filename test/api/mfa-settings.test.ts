// An environment's MFA policy: GET and PUT …/settings/mfa (environment-settings scope).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
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
  url = `/v1/tenants/${tenantId}/environments/${e.environmentId}/settings/mfa`;
});
afterAll(() => t.close());

const call = (method: 'GET' | 'PUT', payload?: unknown, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload !== undefined ? { payload: payload as object } : {}) });
const invalid = (path: string, message: string) => ({
  error: `Invalid request: ${path} ${message}.`,
  code: 'request.invalid',
  requestId: expect.any(String),
  details: [{ path, message }],
});
const SMS = { smsSecondFactor: false, smsRateLimit: { perEnvironmentPerHour: 300, perNumberPerHour: 5 } };
const DEFAULTS = { mode: 'off', requiredRoleKeys: [], emailCodeSecondFactor: false, ...SMS, updatedAt: null };
const MOVED = 'has moved to the session config: set it with PUT or PATCH …/settings/session';

describe('…/settings/mfa', () => {
  it('answers the default policy, replaces it whole, and records mfa_settings.updated with what was before', async () => {
    expect((await call('GET', undefined, await t.token('environment-settings:read'))).json()).toEqual({ settings: DEFAULTS });
    await e.call('POST', '/roles', { key: 'admin' });
    await e.call('POST', '/roles', { key: 'billing' });

    const saved = await call(
      'PUT',
      { mode: 'optional', requiredRoleKeys: ['admin', 'billing'], emailCodeSecondFactor: false },
      await t.token('environment-settings:write'),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const settings = {
      mode: 'optional',
      requiredRoleKeys: ['admin', 'billing'],
      emailCodeSecondFactor: false,
      ...SMS,
      updatedAt: expect.stringMatching(/Z$/),
    };
    expect(saved.json()).toEqual({ settings });
    expect((await call('GET')).json()).toEqual(saved.json());

    // A key left out takes its default.
    const replaced = await call('PUT', { mode: 'required' });
    expect(replaced.json()).toEqual({ settings: { ...DEFAULTS, mode: 'required', updatedAt: expect.stringMatching(/Z$/) } });

    const events = (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type === 'mfa_settings.updated');
    expect(events.map((ev) => [ev.subject, ev.data])).toEqual([
      [
        { type: 'environment', id: e.environmentId },
        {
          environmentId: e.environmentId,
          settings: { mode: 'optional', requiredRoleKeys: ['admin', 'billing'], emailCodeSecondFactor: false, ...SMS },
          previous: { mode: 'off', requiredRoleKeys: [], emailCodeSecondFactor: false, ...SMS },
        },
      ],
      [
        { type: 'environment', id: e.environmentId },
        {
          environmentId: e.environmentId,
          settings: { mode: 'required', requiredRoleKeys: [], emailCodeSecondFactor: false, ...SMS },
          previous: { mode: 'optional', requiredRoleKeys: ['admin', 'billing'], emailCodeSecondFactor: false, ...SMS },
        },
      ],
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'mfa_settings.update', resourceId: e.environmentId });
    expect(audit.map((a) => a.changes)).toEqual([
      {
        before: { mode: 'off', requiredRoleKeys: [] },
        after: { mode: 'optional', requiredRoleKeys: ['admin', 'billing'] },
      },
      {
        before: { mode: 'optional', requiredRoleKeys: ['admin', 'billing'] },
        after: { mode: 'required', requiredRoleKeys: [] },
      },
    ]);
  });

  it('saves emailCodeSecondFactor (default false), returns it, audits and events it, and refuses a non-boolean', async () => {
    const on = await call('PUT', { mode: 'required', emailCodeSecondFactor: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toEqual({ settings: { ...DEFAULTS, mode: 'required', emailCodeSecondFactor: true, updatedAt: expect.stringMatching(/Z$/) } });
    expect((await call('GET')).json()).toEqual(on.json());
    const bad = await call('PUT', { mode: 'required', emailCodeSecondFactor: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'body.emailCodeSecondFactor', message: expect.any(String) }]);
    // Left out, it takes its default again.
    expect((await call('PUT', { mode: 'required' })).json().settings.emailCodeSecondFactor).toBe(false);

    const policy = { mode: 'required', requiredRoleKeys: [], ...SMS };
    const events = (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type === 'mfa_settings.updated');
    expect(events.map((ev) => [ev.data.settings, ev.data.previous])).toEqual([
      [
        { ...policy, emailCodeSecondFactor: true },
        { ...policy, mode: 'off', emailCodeSecondFactor: false },
      ],
      [
        { ...policy, emailCodeSecondFactor: false },
        { ...policy, emailCodeSecondFactor: true },
      ],
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'mfa_settings.update', resourceId: e.environmentId });
    expect(audit.map((a) => a.changes?.after?.emailCodeSecondFactor)).toEqual([true, false]);
  });

  it('saves smsSecondFactor and smsRateLimit (defaults: off, 300 per hour, 5 per number), events them, and refuses bad rates', async () => {
    const on = await call('PUT', { mode: 'required', smsSecondFactor: true, smsRateLimit: { perEnvironmentPerHour: 50, perNumberPerHour: 2 } });
    expect(on.statusCode, on.body).toBe(200);
    const sms = { smsSecondFactor: true, smsRateLimit: { perEnvironmentPerHour: 50, perNumberPerHour: 2 } };
    expect(on.json()).toEqual({ settings: { ...DEFAULTS, mode: 'required', ...sms, updatedAt: expect.stringMatching(/Z$/) } });
    expect((await call('GET')).json()).toEqual(on.json());
    // One rate given: the other takes its default.
    const one = await call('PUT', { mode: 'required', smsRateLimit: { perNumberPerHour: 3 } });
    expect(one.json().settings.smsRateLimit).toEqual({ perEnvironmentPerHour: 300, perNumberPerHour: 3 });
    for (const [body, path] of [
      [{ smsSecondFactor: 'yes' }, 'body.smsSecondFactor'],
      [{ smsRateLimit: { perNumberPerHour: 0 } }, 'body.smsRateLimit.perNumberPerHour'],
      [{ smsRateLimit: { perNumberPerHour: 101 } }, 'body.smsRateLimit.perNumberPerHour'],
      [{ smsRateLimit: { perEnvironmentPerHour: 1.5 } }, 'body.smsRateLimit.perEnvironmentPerHour'],
      [{ smsRateLimit: { perDay: 3 } }, 'body.smsRateLimit.perDay'],
    ] as const) {
      const bad = await call('PUT', { mode: 'required', ...body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().details, JSON.stringify(body)).toEqual([{ path, message: expect.any(String) }]);
    }
    const events = (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type === 'mfa_settings.updated');
    expect(events.map((ev) => ev.data.settings)).toEqual([
      { mode: 'required', requiredRoleKeys: [], emailCodeSecondFactor: false, ...sms },
      {
        mode: 'required',
        requiredRoleKeys: [],
        emailCodeSecondFactor: false,
        smsSecondFactor: false,
        smsRateLimit: { perEnvironmentPerHour: 300, perNumberPerHour: 3 },
      },
    ]);
  });

  it('is what the sign-in services apply', async () => {
    await e.call('POST', '/roles', { key: 'admin' });
    const userId = await e.newUser();
    await e.call('POST', '/assignments', { role: 'admin', userId });
    const mfa = createMfaService(t.pool, t.masterKey);
    const env = { tenantId, environmentId: e.environmentId };
    expect(await mfa.mfaRequirement(env, userId)).toBe('off');
    expect((await call('PUT', { mode: 'optional', requiredRoleKeys: ['admin'] })).statusCode).toBe(200);
    expect(await mfa.mfaRequirement(env, userId)).toBe('required');
    expect(await mfa.mfaRequirement(env, await e.newUser())).toBe('optional');
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    await e.call('POST', '/roles', { key: 'admin' });
    const cases: [unknown, string, string][] = [
      [{}, 'body.mode', expect.any(String) as unknown as string],
      [{ mode: 'sometimes' }, 'body.mode', expect.any(String) as unknown as string],
      [{ mode: 'optional', requiredRoleKeys: ['admin', 'ghost'] }, 'body.requiredRoleKeys.1', 'ghost is not a role of this environment'],
      [{ mode: 'optional', requiredRoleKeys: ['admin', 'admin'] }, 'body.requiredRoleKeys.1', 'admin is listed twice'],
      [{ mode: 'optional', requiredRoleKeys: ['bad key'] }, 'body.requiredRoleKeys.0', 'must be 1–100 characters of A–Z, a–z, 0–9, _ . : -'],
      [{ mode: 'optional', rememberDeviceSeconds: 3600 }, 'body.rememberDeviceSeconds', MOVED],
      [{ mode: 'optional', rememberDeviceSeconds: null }, 'body.rememberDeviceSeconds', MOVED],
      [{ mode: 'optional', extra: true }, 'body.extra', expect.any(String) as unknown as string],
    ];
    for (const [body, path, message] of cases) {
      const res = await call('PUT', body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().code).toBe('request.invalid');
      expect(res.json().details, JSON.stringify(body)).toEqual([{ path, message }]);
    }
    // The remember-device lifetime lives in the session config now: the error says where.
    expect((await call('PUT', { mode: 'optional', rememberDeviceSeconds: 3600 })).json()).toEqual(invalid('body.rememberDeviceSeconds', MOVED));
    expect((await call('PUT', { mode: 'optional', requiredRoleKeys: ['ghost'] })).json()).toEqual(
      invalid('body.requiredRoleKeys.0', 'ghost is not a role of this environment'),
    );
    expect((await call('GET')).json()).toEqual({ settings: DEFAULTS });
  });

  it('needs the environment-settings scope and answers 404 to another organization', async () => {
    expect((await call('GET', undefined, await t.token('directory:write'))).statusCode).toBe(403);
    expect((await call('PUT', { mode: 'required' }, await t.token('environment-settings:read'))).statusCode).toBe(403);
    const other = (await otherOrganization(t)).token;
    for (const res of [await call('GET', undefined, other), await call('PUT', { mode: 'required' }, other)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    expect((await call('GET')).json()).toEqual({ settings: DEFAULTS });
  });
});
