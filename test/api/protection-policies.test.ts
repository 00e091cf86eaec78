// The protection policies: GET and PUT …/settings/{breached-password,brute-force,bot-detection,rate-limit,device-risk}-policy
// and …/settings/restrictions (environment-settings scope), and the Provider snapshot the sign-in pages read them from.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';
import { snapshotOf } from '../../api/oidc/providers.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let e: RbacEnvironment;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
beforeEach(async () => {
  e = await rbacEnvironment(t, token);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'PUT', segment: string, payload?: unknown, auth = token) =>
  t.app.inject({
    method,
    url: `/v1/tenants/${tenantId}/environments/${e.environmentId}/settings/${segment}`,
    headers: bearer(auth),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
const stamp = expect.stringMatching(/Z$/);

const DEFAULTS = {
  'breached-password-policy': { enabled: false, checkOnSignup: true, checkOnChange: true, mode: 'block' },
  'brute-force-policy': { enabled: false, maxFailures: 5, lockoutMinutes: 15, progressiveDelay: false },
  'bot-detection-policy': { enabled: false, sensitivity: 'medium', challengeMode: 'step_up' },
  'rate-limit-policy': {
    enabled: false,
    windowSeconds: 60,
    maxAttempts: 10,
    scope: 'ip',
    applySignIn: true,
    applySignUp: true,
    applyPasswordReset: true,
    action: 'deny',
  },
  'device-risk-policy': { challengeUnrecognized: false, impossibleTravel: 'off' },
  restrictions: {
    signupMode: 'open',
    allowlistEnabled: false,
    allowlistDomains: null,
    blocklistEnabled: false,
    blocklistDomains: null,
    applyToSignins: false,
    blockEmailSubaddresses: false,
    blockDisposableEmails: false,
  },
} as const;

describe('…/settings/{policy}', () => {
  it('answers null until saved, saves with defaults for keys left out, and records one event and audit entry per save', async () => {
    for (const [segment, defaults] of Object.entries(DEFAULTS)) {
      const key = segment === 'restrictions' ? 'restrictions' : 'policy';
      expect((await call('GET', segment, undefined, await t.token('environment-settings:read'))).json()).toEqual({ [key]: null });
      const saved = await call('PUT', segment, {}, await t.token('environment-settings:write'));
      expect(saved.statusCode, saved.body).toBe(200);
      const extra = key === 'restrictions' ? { environmentId: e.environmentId } : {};
      expect(saved.json()).toEqual({ [key]: { id: expect.any(String), ...extra, ...defaults, createdAt: stamp, updatedAt: stamp } });
      expect((await call('GET', segment)).json()).toEqual(saved.json());
    }
    const changed = await call('PUT', 'brute-force-policy', { enabled: true, maxFailures: 3 });
    expect(changed.json().policy).toMatchObject({ enabled: true, maxFailures: 3, lockoutMinutes: 15 });

    const events = (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type.endsWith('_policy.updated'));
    const bruteForce = events.filter((ev) => ev.type === 'brute_force_policy.updated').map((ev) => ev.data);
    expect(bruteForce).toEqual([
      { environmentId: e.environmentId, settings: DEFAULTS['brute-force-policy'], previous: null },
      {
        environmentId: e.environmentId,
        settings: { ...DEFAULTS['brute-force-policy'], enabled: true, maxFailures: 3 },
        previous: DEFAULTS['brute-force-policy'],
      },
    ]);
    const restrictions = await tenantEvents(t, tenantId, { environmentId: e.environmentId });
    expect(restrictions.filter((ev) => ev.type === 'environment_restrictions.updated')).toHaveLength(1);
    const audit = await auditEntries(t, { tenantId }, { action: 'brute_force_policy.update', resourceId: e.environmentId });
    expect(audit).toHaveLength(2);
  });

  it('normalizes the restrictions’ domain lists and refuses a name that is not a public domain', async () => {
    const saved = await call('PUT', 'restrictions', {
      allowlistEnabled: true,
      allowlistDomains: ' Example.COM,\n@example.org  example.com ',
      blocklistDomains: '',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().restrictions).toMatchObject({ allowlistDomains: 'example.com, example.org', blocklistDomains: null });
    const refused = await call('PUT', 'restrictions', { blocklistDomains: 'example.com, https://evil.example.com' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([{ path: 'body.blocklistDomains', message: expect.stringContaining('https://evil.example.com') }]);
    expect((await call('GET', 'restrictions')).json().restrictions.blocklistDomains).toBeNull();
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['breached-password-policy', { mode: 'shout' }, 'body.mode'],
      ['breached-password-policy', { enabled: 'yes' }, 'body.enabled'],
      ['brute-force-policy', { maxFailures: 0 }, 'body.maxFailures'],
      ['brute-force-policy', { lockoutMinutes: 2.5 }, 'body.lockoutMinutes'],
      ['bot-detection-policy', { sensitivity: 'extreme' }, 'body.sensitivity'],
      ['bot-detection-policy', { challengeMode: 'captcha' }, 'body.challengeMode'],
      ['rate-limit-policy', { scope: 'tenant' }, 'body.scope'],
      ['rate-limit-policy', { windowSeconds: 0 }, 'body.windowSeconds'],
      ['rate-limit-policy', { action: 'block' }, 'body.action'],
      ['device-risk-policy', { impossibleTravel: 'on' }, 'body.impossibleTravel'],
      ['device-risk-policy', { enabled: true }, 'body.enabled'],
      ['restrictions', { signupMode: 'public' }, 'body.signupMode'],
      ['restrictions', { allowlistDomains: 'localhost' }, 'body.allowlistDomains'],
    ];
    for (const [segment, body, path] of cases) {
      const res = await call('PUT', segment, body);
      expect(res.statusCode, `${segment} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({
        error: expect.any(String),
        code: 'request.invalid',
        requestId: expect.any(String),
        details: [{ path, message: expect.any(String) }],
      });
      expect((await call('GET', segment)).json()).toEqual({ [segment === 'restrictions' ? 'restrictions' : 'policy']: null });
    }
  });

  it('reaches the sign-in pages through the Provider snapshot, rebuilt after a save', async () => {
    const provider = async () => snapshotOf(await t.app.oidc.get(e.environmentId));
    expect((await provider()).protections).toEqual({});
    await call('PUT', 'rate-limit-policy', { enabled: true, maxAttempts: 3 });
    await expect.poll(async () => (await provider()).protections.rate_limit?.maxAttempts, { timeout: 10_000 }).toBe(3);
  });

  it('needs the environment-settings scope and answers 404 to another organization', async () => {
    expect((await call('GET', 'rate-limit-policy', undefined, await t.token('directory:write'))).statusCode).toBe(403);
    expect((await call('PUT', 'restrictions', {}, await t.token('environment-settings:read'))).statusCode).toBe(403);
    const other = (await otherOrganization(t)).token;
    for (const segment of Object.keys(DEFAULTS)) {
      for (const res of [await call('GET', segment, undefined, other), await call('PUT', segment, {}, other)]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe('tenant.not_found');
      }
    }
  });
});
