// The bot-challenge add-ons: GET …/add-ons, PUT and DELETE …/add-ons/{kind}, POST …/add-ons/{kind}/test against a
// local siteverify verifier; secrets sealed and shown only as hints; one active bot challenge per environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { startSiteverifyFake, type SiteverifyFake } from '../helpers/vendor-fakes/siteverify.ts';
import { snapshotOf } from '../../api/oidc/providers.ts';

const SECRET = '0x4AAAAAAAsecret-key-0123WXYZ';
let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let verifier: SiteverifyFake;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  verifier = await startSiteverifyFake(SECRET);
});
afterAll(async () => {
  await verifier.close();
  await t.close();
});
const fresh = async () => {
  ({
    tenantId,
    environmentIds: [environmentId],
  } = (await newEnvironments(t, token)) as { tenantId: string; environmentIds: [string] });
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/add-ons`;
};
const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });
const stamp = expect.stringMatching(/Z$/);

describe('…/add-ons', () => {
  it('saves a bot challenge with its secret sealed, shows only a hint, updates keeping the secret, and never records it', async () => {
    await fresh();
    expect((await call('GET', '')).json()).toEqual({ addOns: [] });
    const saved = await call('PUT', '/turnstile', {
      active: true,
      config: { siteKey: '0x4AAAAAAAsite', baseUrl: `${verifier.url}/` },
      secrets: { secretKey: SECRET },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const addOn = {
      id: expect.any(String),
      environmentId,
      kind: 'turnstile',
      category: 'bot_challenge',
      active: true,
      config: { siteKey: '0x4AAAAAAAsite', baseUrl: verifier.url },
      secretHints: { secretKey: '…WXYZ' },
      createdAt: stamp,
      updatedAt: stamp,
    };
    expect(saved.json()).toEqual({ addOn });
    const updated = await call('PUT', '/turnstile', { config: { siteKey: 'other-site', baseUrl: verifier.url } });
    expect(updated.json().addOn).toMatchObject({ config: { siteKey: 'other-site', baseUrl: verifier.url }, secretHints: { secretKey: '…WXYZ' }, active: true });
    expect((await call('GET', '', undefined, await t.token('add-ons:read'))).json()).toEqual({ addOns: [updated.json().addOn] });
    // The pages read the active challenge from the Provider snapshot, rebuilt after the save.
    await expect
      .poll(async () => snapshotOf(await t.app.oidc.get(environmentId)).botChallenge, { timeout: 10_000 })
      .toEqual({ kind: 'turnstile', siteKey: 'other-site' });

    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type.startsWith('add_on.'));
    expect(events.map((e) => [e.type, e.data.deactivated])).toEqual([
      ['add_on.saved', null],
      ['add_on.saved', null],
    ]);
    const audit = (await auditEntries(t, { tenantId }, { action: 'add_on.save' })).filter((a) => a.environmentId === environmentId);
    expect(audit).toHaveLength(2);
    expect(JSON.stringify([events, audit])).not.toContain(SECRET);
  });

  it('keeps one active bot challenge: activating another deactivates the first; delete removes it from the pages', async () => {
    await fresh();
    await call('PUT', '/turnstile', { active: true, config: { siteKey: 'turnstile-site' }, secrets: { secretKey: SECRET } });
    const h = await call('PUT', '/hcaptcha', { active: true, config: { siteKey: 'hcaptcha-site' }, secrets: { secretKey: SECRET } });
    expect(h.json().addOn.active).toBe(true);
    expect((await call('GET', '')).json().addOns.map((a: { kind: string; active: boolean }) => [a.kind, a.active])).toEqual([
      ['hcaptcha', true],
      ['turnstile', false],
    ]);
    const saved = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'add_on.saved');
    expect(saved.at(-1)!.data.deactivated).toBe('turnstile');
    await expect
      .poll(async () => snapshotOf(await t.app.oidc.get(environmentId)).botChallenge, { timeout: 10_000 })
      .toEqual({ kind: 'hcaptcha', siteKey: 'hcaptcha-site' });

    const removed = await call('DELETE', '/hcaptcha');
    expect(removed.json()).toEqual({ success: true });
    expect((await call('DELETE', '/hcaptcha')).json()).toMatchObject({ code: 'add_on.not_found' });
    const deleted = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'add_on.deleted');
    expect(deleted.map((e) => (e.data.addOn as { kind: string }).kind)).toEqual(['hcaptcha']);
    await expect.poll(async () => snapshotOf(await t.app.oidc.get(environmentId)).botChallenge, { timeout: 10_000 }).toBeNull();
  });

  it('tests the secret with siteverify and a dummy token: accepted, refused, and 502 when the verifier cannot be reached', async () => {
    await fresh();
    await call('PUT', '/recaptcha', { config: { siteKey: 'site', baseUrl: verifier.url }, secrets: { secretKey: SECRET } });
    const ok = await call('POST', '/recaptcha/test');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: false, errorCodes: ['invalid-input-response'], secretAccepted: true });
    expect(verifier.requests.at(-1)).toEqual({
      path: '/recaptcha/api/siteverify',
      contentType: 'application/x-www-form-urlencoded',
      form: { secret: SECRET, response: 'iam-add-on-test-token' },
    });
    await call('PUT', '/recaptcha', { secrets: { secretKey: 'wrong-secret' } });
    expect((await call('POST', '/recaptcha/test')).json()).toEqual({ success: false, errorCodes: ['invalid-input-secret'], secretAccepted: false });

    await call('PUT', '/turnstile', { config: { siteKey: 'site', baseUrl: 'http://127.0.0.1:9' }, secrets: { secretKey: SECRET } });
    const down = await call('POST', '/turnstile/test');
    expect(down.statusCode).toBe(502);
    expect(down.json()).toMatchObject({ code: 'add_on.test_failed' });
    const tested = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'add_on.tested');
    expect(tested.map((e) => [(e.data.addOn as { kind: string }).kind, e.data.reached, e.data.secretAccepted])).toEqual([
      ['recaptcha', true, true],
      ['recaptcha', true, false],
      ['turnstile', false, false],
    ]);
    expect(JSON.stringify(tested)).not.toContain(SECRET);
    expect((await call('POST', '/hcaptcha/test')).json()).toMatchObject({ code: 'add_on.not_found' });
  });

  it('answers 400 naming the field: missing config or secret on a first save, a bad site key or base URL, an unknown field or kind', async () => {
    await fresh();
    const first = await call('PUT', '/turnstile', { secrets: { secretKey: SECRET } });
    expect(first.statusCode).toBe(400);
    expect(first.json()).toMatchObject({ code: 'add_on.invalid', details: [{ path: 'body.config', message: 'is required' }] });
    const missing = await call('PUT', '/turnstile', { config: { siteKey: 'site' } });
    expect(missing.json().details).toEqual([{ path: 'body.secrets.secretKey', message: 'is required' }]);
    const bad = await call('PUT', '/hcaptcha', { config: { siteKey: 'a b', baseUrl: 'ftp://x', extra: 1 }, secrets: { secretKey: SECRET } });
    expect(bad.json().details).toEqual([
      { path: 'body.config.siteKey', message: 'must be the site key the vendor gave (letters, digits, `-` and `_`)' },
      { path: 'body.config.baseUrl', message: 'must be an http(s) URL' },
      { path: 'body.config.extra', message: 'is not a known field' },
    ]);
    const kind = await call('PUT', '/paypal', { config: {} });
    expect(kind.statusCode).toBe(400);
    expect(kind.json().details[0].path).toBe('params.kind');
    const field = await call('PUT', '/turnstile', { config: { siteKey: 's' }, secrets: { secretKey: SECRET }, enabled: true });
    expect(field.json().details).toEqual([{ path: 'body.enabled', message: expect.any(String) }]);
  });

  it('answers 404 to another organization and 403 without add-ons:write', async () => {
    await fresh();
    const other = (await otherOrganization(t)).token;
    for (const res of [await call('GET', '', undefined, other), await call('PUT', '/turnstile', { config: { siteKey: 's' } }, other)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    const reader = await t.token('add-ons:read');
    expect((await call('PUT', '/turnstile', { config: { siteKey: 's' } }, reader)).statusCode).toBe(403);
  });
});
