// An environment's token settings: JWT claim mappings (exact shapes, every validation rule naming its field, 409 on
// a duplicate claim, events and audit) and the session config (defaults, replace, merge, bounds, events).
import { beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { bearer, type TestApp } from '../helpers/app.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
const env = environmentPerTest();
beforeEach(() => {
  ({ t, token, tenantId, environmentId } = env);
  base = `${env.base}/settings`;
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: unknown, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload === undefined ? {} : { payload: payload as object }) });
const save = (payload: object) => call('POST', '/jwt-claim-mappings', payload);
const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('JWT claim mappings', () => {
  it('are listed, created, updated and deleted with the SPEC shapes, events and audit', async () => {
    expect((await call('GET', '/jwt-claim-mappings')).json()).toEqual({ mappings: [] });

    const created = await save({ claimName: 'department', source: 'attribute', metadataKey: 'dept' });
    expect(created.statusCode).toBe(201);
    const mapping = created.json().mapping;
    expect(created.json()).toEqual({
      mapping: {
        id: expect.any(String),
        environmentId,
        claimName: 'department',
        source: 'attribute',
        metadataKey: 'dept',
        staticValue: null,
        enabled: true,
        createdAt: TIME,
        updatedAt: TIME,
      },
    });
    const tier = (await save({ claimName: 'https://example.com/tier'.replace(/\//g, '.'), source: 'static', staticValue: 'gold', enabled: false })).json()
      .mapping;
    expect(tier).toMatchObject({ claimName: 'https:..example.com.tier', source: 'static', metadataKey: null, staticValue: 'gold', enabled: false });

    const updated = await save({ id: mapping.id, claimName: 'title', source: 'user_field', metadataKey: 'title' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().mapping).toEqual({ ...mapping, claimName: 'title', source: 'user_field', metadataKey: 'title', updatedAt: TIME });
    expect((await call('GET', '/jwt-claim-mappings')).json()).toEqual({ mappings: [updated.json().mapping, tier] });

    const deleted = await call('DELETE', `/jwt-claim-mappings/${mapping.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ success: true });
    expect((await call('GET', '/jwt-claim-mappings')).json()).toEqual({ mappings: [tier] });
    expect((await call('DELETE', `/jwt-claim-mappings/${mapping.id}`)).json()).toMatchObject({ code: 'jwt_claim_mapping.not_found' });

    const events = await tenantEvents(t, tenantId, { environmentId });
    expect(events.filter((e) => e.type.startsWith('jwt_claim_mapping.')).map((e) => [e.type, e.data])).toEqual([
      ['jwt_claim_mapping.saved', { mapping, created: true }],
      ['jwt_claim_mapping.saved', { mapping: tier, created: true }],
      ['jwt_claim_mapping.saved', { mapping: updated.json().mapping, created: false }],
      ['jwt_claim_mapping.deleted', { mapping: updated.json().mapping }],
    ]);
    const audit = await auditEntries(t, { tenantId }, { resourceId: mapping.id });
    expect(audit.map((a) => [a.action, a.changes?.after?.claimName ?? null])).toEqual([
      ['jwt_claim_mapping.create', 'department'],
      ['jwt_claim_mapping.update', 'title'],
      ['jwt_claim_mapping.delete', null],
    ]);
  });

  it('keeps enabled on an update that leaves it out', async () => {
    const { id } = (await save({ claimName: 'tier', source: 'static', staticValue: 'gold', enabled: false })).json().mapping;
    expect((await save({ id, claimName: 'tier', source: 'static', staticValue: 'silver' })).json().mapping).toMatchObject({
      enabled: false,
      staticValue: 'silver',
    });
  });

  it('answers 409 naming body.claimName for a claim already mapped, on create and on update', async () => {
    await save({ claimName: 'department', source: 'attribute', metadataKey: 'dept' });
    const other = (await save({ claimName: 'team', source: 'attribute', metadataKey: 'team' })).json().mapping;
    for (const res of [
      await save({ claimName: 'department', source: 'static', staticValue: 'x' }),
      await save({ id: other.id, claimName: 'department', source: 'attribute', metadataKey: 'team' }),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'jwt_claim_mapping.claim_name_taken',
        details: [{ path: 'body.claimName', message: 'department is already the claimName of another mapping in this environment' }],
      });
    }
  });

  it('answers 404 when the id names no mapping of the environment', async () => {
    const res = await save({ id: crypto.randomUUID(), claimName: 'team', source: 'attribute', metadataKey: 'team' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('jwt_claim_mapping.not_found');
  });

  it.each([
    [{ source: 'static', staticValue: 'x' }, 'body.claimName', /^is required$/],
    [{ claimName: 'x' }, 'body.source', /./],
    [{ claimName: '', source: 'static', staticValue: 'x' }, 'body.claimName', /1 to 128 characters/],
    [{ claimName: 'a'.repeat(129), source: 'static', staticValue: 'x' }, 'body.claimName', /1 to 128 characters/],
    [{ claimName: 'has space', source: 'static', staticValue: 'x' }, 'body.claimName', /1 to 128 characters/],
    [{ claimName: 'sub', source: 'static', staticValue: 'x' }, 'body.claimName', /reserved claim/],
    [{ claimName: 'Email', source: 'user_field', metadataKey: 'userName' }, 'body.claimName', /reserved claim/],
    [{ claimName: 'team', source: 'group', metadataKey: 'x' }, 'body.source', /./],
    [{ claimName: 'team', source: 'user_field' }, 'body.metadataKey', /^is required with source user_field$/],
    [{ claimName: 'team', source: 'user_field', metadataKey: 'password' }, 'body.metadataKey', /must name a field of the user: id, externalId, userName/],
    [{ claimName: 'team', source: 'attribute', metadataKey: null }, 'body.metadataKey', /^is required with source attribute$/],
    [{ claimName: 'team', source: 'attribute', metadataKey: 'a', staticValue: 'x' }, 'body.staticValue', /^must be absent with source attribute$/],
    [{ claimName: 'team', source: 'static' }, 'body.staticValue', /^is required with source static$/],
    [{ claimName: 'team', source: 'static', staticValue: 'x'.repeat(1025) }, 'body.staticValue', /1024/],
    [{ claimName: 'team', source: 'static', staticValue: 'x', metadataKey: 'k' }, 'body.metadataKey', /^must be absent with source static$/],
    [{ claimName: 'team', source: 'static', staticValue: 'x', enabled: 'yes' }, 'body.enabled', /./],
    [{ claimName: 'team', source: 'static', staticValue: 'x', id: 'nope' }, 'body.id', /./],
    [{ claimName: 'team', source: 'static', staticValue: 'x', other: 1 }, 'body.other', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await save(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('request.invalid');
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });
});

const DEFAULTS = {
  absoluteLifetimeSeconds: 14 * 86_400,
  idleLifetimeSeconds: 3 * 86_400,
  rememberMe: true,
  accessTokenLifetimeSeconds: 3600,
  idTokenLifetimeSeconds: 3600,
  refreshTokenLifetimeSeconds: 30 * 86_400,
  rememberDeviceSeconds: null,
};

describe('session config', () => {
  it('answers the defaults, then replaces and merges, keeping unknown keys, with events and audit', async () => {
    expect((await call('GET', '/session')).json()).toEqual({ config: DEFAULTS });

    const replaced = await call('PUT', '/session', { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' } });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toEqual({ config: { ...DEFAULTS, accessTokenLifetimeSeconds: 600, brand: { color: 'teal' } } });
    expect((await call('GET', '/session')).json()).toEqual(replaced.json());

    const merged = await call('PATCH', '/session', { rememberMe: false, idleLifetimeSeconds: 3600 });
    expect(merged.json()).toEqual({
      config: { ...DEFAULTS, accessTokenLifetimeSeconds: 600, brand: { color: 'teal' }, rememberMe: false, idleLifetimeSeconds: 3600 },
    });
    const again = await call('PUT', '/session', { rememberMe: false });
    expect(again.json()).toEqual({ config: { ...DEFAULTS, rememberMe: false } });

    const events = await tenantEvents(t, tenantId, { type: 'session_config.updated', environmentId });
    expect(events.map((e) => e.data)).toEqual([
      { environmentId, config: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' } }, previous: {} },
      {
        environmentId,
        config: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' }, rememberMe: false, idleLifetimeSeconds: 3600 },
        previous: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' } },
      },
      {
        environmentId,
        config: { rememberMe: false },
        previous: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' }, rememberMe: false, idleLifetimeSeconds: 3600 },
      },
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'session_config.update' });
    // A lifetime named after tokens is not a secret: the audit shows it.
    expect(audit.filter((a) => a.environmentId === environmentId).map((a) => a.changes)).toEqual([
      { before: { accessTokenLifetimeSeconds: null, brand: null }, after: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' } } },
      { before: { rememberMe: null, idleLifetimeSeconds: null }, after: { rememberMe: false, idleLifetimeSeconds: 3600 } },
      {
        before: { accessTokenLifetimeSeconds: 600, brand: { color: 'teal' }, idleLifetimeSeconds: 3600 },
        after: { accessTokenLifetimeSeconds: null, brand: null, idleLifetimeSeconds: null },
      },
    ]);
  });

  it.each([
    [{ absoluteLifetimeSeconds: 59 }, 'body.absoluteLifetimeSeconds', /60/],
    [{ absoluteLifetimeSeconds: 1.5 * 3600 + 0.5 }, 'body.absoluteLifetimeSeconds', /expected int/],
    [{ accessTokenLifetimeSeconds: 86_401 }, 'body.accessTokenLifetimeSeconds', /86400/],
    [{ idTokenLifetimeSeconds: '3600' }, 'body.idTokenLifetimeSeconds', /number/],
    [{ refreshTokenLifetimeSeconds: 400 * 86_400 + 1 }, 'body.refreshTokenLifetimeSeconds', /34560000/],
    [{ rememberMe: 'yes' }, 'body.rememberMe', /boolean/],
    [{ rememberDeviceSeconds: 59 }, 'body.rememberDeviceSeconds', />=60/],
    [{ rememberDeviceSeconds: 400 * 86_400 + 1 }, 'body.rememberDeviceSeconds', /34560000/],
    [{ rememberDeviceSeconds: 1.5 }, 'body.rememberDeviceSeconds', /expected int/],
    [{ rememberDeviceSeconds: '3600' }, 'body.rememberDeviceSeconds', /number/],
    [{ idleLifetimeSeconds: 15 * 86_400 }, 'body.idleLifetimeSeconds', /above absoluteLifetimeSeconds \(1209600\)/],
    [{ absoluteLifetimeSeconds: 3600, idleLifetimeSeconds: 7200 }, 'body.idleLifetimeSeconds', /above absoluteLifetimeSeconds \(3600\)/],
    [{ absoluteLifetimeSeconds: 3600 }, 'body.absoluteLifetimeSeconds', /leaves idleLifetimeSeconds \(259200\) above/],
    [Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])), 'body', /at most 64 keys/],
    [{ blob: 'x'.repeat(16 * 1024) }, 'body', /16 KiB/],
  ])('refuses %o naming %s, on PUT and PATCH', async (payload, path, message) => {
    for (const method of ['PUT', 'PATCH'] as const) {
      const res = await call(method, '/session', payload);
      expect(res.statusCode, method).toBe(400);
      expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
    }
    expect((await call('GET', '/session')).json()).toEqual({ config: DEFAULTS });
  });

  it('holds the remember-device lifetime (absent or null: never remembered) that the MFA services apply from the next call', async () => {
    const mfa = createMfaService(t.pool, t.masterKey);
    const mfaEnv = { tenantId, environmentId };
    const userId = crypto.randomUUID();
    expect(await mfa.rememberDeviceToken(mfaEnv, userId)).toBeNull();
    const set = await call('PATCH', '/session', { rememberDeviceSeconds: 600 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ config: { ...DEFAULTS, rememberDeviceSeconds: 600 } });
    const token = await mfa.rememberDeviceToken(mfaEnv, userId);
    expect(token?.maxAgeSeconds).toBe(600);
    expect(await mfa.checkRememberDevice(mfaEnv, userId, token!.value)).toBe(true);
    const off = await call('PATCH', '/session', { rememberDeviceSeconds: null });
    expect(off.json()).toEqual({ config: DEFAULTS });
    expect(await mfa.rememberDeviceToken(mfaEnv, userId)).toBeNull();
    expect(await mfa.checkRememberDevice(mfaEnv, userId, token!.value)).toBe(false);
  });

  it('refuses a patch that would leave the idle lifetime above the stored absolute one', async () => {
    await call('PUT', '/session', { absoluteLifetimeSeconds: 7200, idleLifetimeSeconds: 3600 });
    const res = await call('PATCH', '/session', { idleLifetimeSeconds: 7201 });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: 'body.idleLifetimeSeconds', message: 'leaves idleLifetimeSeconds (7201) above absoluteLifetimeSeconds (7200)' },
    ]);
  });

  it('refuses a patch that would grow the config past 64 keys', async () => {
    await call('PUT', '/session', Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i])));
    const res = await call('PATCH', '/session', Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`n${i}`, i])));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'body', message: 'would make the config larger than 64 keys or 16 KiB as JSON' }]);
  });

  it('needs environment-settings scopes, and is 404 to another organization', async () => {
    const readOnly = await t.token('environment-settings:read');
    expect((await call('GET', '/session', undefined, readOnly)).statusCode).toBe(200);
    expect((await call('PUT', '/session', {}, readOnly)).statusCode).toBe(403);
    expect((await call('POST', '/jwt-claim-mappings', { claimName: 'a', source: 'static', staticValue: 'b' }, readOnly)).statusCode).toBe(403);
    const { token: theirs } = await otherOrganization(t);
    for (const [method, path] of [
      ['GET', '/session'],
      ['PUT', '/session'],
      ['GET', '/jwt-claim-mappings'],
    ] as const) {
      const res = await call(method, path, method === 'PUT' ? {} : undefined, theirs);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
  });
});
