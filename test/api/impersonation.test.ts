import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let token: string;
let operatorId: string;
let tenantId: string;
let environmentId: string;
let base: string;
let userId: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  operatorId = decodeJwt(token).sub!;
  tenantId = t.credentials.tenantId;
});
// An environment of its own for every test, with one user to impersonate.
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/impersonation`;
  userId = await createUser('ada@example.com');
});
afterAll(() => t.close());

const ts = expect.any(String);
const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });

async function createUser(userName: string) {
  const res = await call('POST', `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`, {
    userName,
    emails: [{ value: userName, type: 'work' }],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user.id as string;
}

async function issue(payload: object = {}) {
  const res = await call('POST', `${base}/grants`, { userId, reason: 'Ticket #42: the user cannot see their invoices', ...payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { grant: { id: string; expiresAt: string; createdAt: string }; token: string; expiresIn: number };
}

const userinfo = (auth: string) => t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(auth) });
const introspect = async (subject: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/v1/oauth/introspect', headers: bearer(token), payload: { token: subject } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
};
const detailsOf = (res: { json(): unknown }) => (res.json() as { details: { path: string }[] }).details.map((d) => d.path);

describe('impersonation grants', () => {
  it('issues a grant with a token shown once, signed like management tokens and verifiable offline', async () => {
    const res = await call('POST', `${base}/grants`, { userId, reason: '  Ticket #42  ', durationSeconds: 600 });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      grant: {
        id: expect.any(String),
        environmentId,
        userId,
        actor: { type: 'service_account', id: operatorId },
        reason: 'Ticket #42',
        createdAt: ts,
        expiresAt: ts,
        revokedAt: null,
        revokedBy: null,
        revokeReason: null,
        status: 'active',
      },
      token: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 600,
    });
    expect(Date.parse(body.grant.expiresAt) - Date.parse(body.grant.createdAt)).toBe(600_000);

    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as JSONWebKeySet;
    const issuer = t.config.publicBaseUrl;
    const { payload, protectedHeader } = await jwtVerify(body.token, createLocalJWKSet(jwks), { issuer, audience: `${issuer}/v1/impersonation` });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'impersonation+jwt' });
    expect(payload).toEqual({
      iss: issuer,
      sub: userId,
      aud: `${issuer}/v1/impersonation`,
      act: { sub: operatorId, actor_type: 'service_account' },
      token_type: 'impersonation',
      grant_id: body.grant.id,
      environment_id: environmentId,
      tenant_id: tenantId,
      jti: expect.any(String),
      iat: Math.floor(Date.parse(body.grant.createdAt) / 1000),
      exp: Math.floor(Date.parse(body.grant.expiresAt) / 1000),
    });
    // Not a management token: it does not verify with their audience.
    await expect(jwtVerify(body.token, createLocalJWKSet(jwks), { issuer, audience: `${issuer}/v1` })).rejects.toThrow();
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
  });

  it('refuses bad requests naming the field', async () => {
    const cases: [object, string][] = [
      [{ userId, reason: '' }, 'body.reason'],
      [{ userId, reason: '   ' }, 'body.reason'],
      [{ userId, reason: 'x'.repeat(1001) }, 'body.reason'],
      [{ userId }, 'body.reason'],
      [{ reason: 'why' }, 'body.userId'],
      [{ userId: 'nope', reason: 'why' }, 'body.userId'],
      [{ userId, reason: 'why', durationSeconds: 0 }, 'body.durationSeconds'],
      [{ userId, reason: 'why', durationSeconds: 1.5 }, 'body.durationSeconds'],
      [{ userId, reason: 'why', scopes: ['*'] }, 'body.scopes'],
    ];
    for (const [payload, path] of cases) {
      const res = await call('POST', `${base}/grants`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(detailsOf(res)).toContain(path);
    }
    const stranger = await call('POST', `${base}/grants`, { userId: crypto.randomUUID(), reason: 'why' });
    expect(stranger.statusCode).toBe(400);
    expect(detailsOf(stranger)).toEqual(['body.userId']);
  });

  it('bounds the duration by the environment setting (15 minutes by default)', async () => {
    expect((await call('GET', `${base}/settings`)).json()).toEqual({ settings: { maxDurationMinutes: 15, notifyUser: false } });
    const tooLong = await call('POST', `${base}/grants`, { userId, reason: 'why', durationSeconds: 901 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ code: 'request.invalid', details: [{ path: 'body.durationSeconds', message: expect.stringContaining('900') }] });
    expect((await issue()).expiresIn).toBe(900);

    const saved = await call('PUT', `${base}/settings`, { maxDurationMinutes: 60, notifyUser: false });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ settings: { maxDurationMinutes: 60, notifyUser: false } });
    expect((await issue({ durationSeconds: 3600 })).expiresIn).toBe(3600);
    expect((await call('POST', `${base}/grants`, { userId, reason: 'why', durationSeconds: 3601 })).statusCode).toBe(400);

    for (const [payload, path] of [
      [{ maxDurationMinutes: 0, notifyUser: false }, 'body.maxDurationMinutes'],
      [{ maxDurationMinutes: 1441, notifyUser: false }, 'body.maxDurationMinutes'],
      [{ maxDurationMinutes: 10 }, 'body.notifyUser'],
    ] as const) {
      const res = await call('PUT', `${base}/settings`, payload);
      expect(res.statusCode).toBe(400);
      expect(detailsOf(res)).toContain(path);
    }
    // Another environment keeps its own (default) limit.
    const other = (await newEnvironments(t, token)).environmentIds[0]!;
    const defaults = await call('GET', `/v1/tenants/${tenantId}/environments/${other}/impersonation/settings`);
    expect(defaults.json()).toEqual({ settings: { maxDurationMinutes: 15, notifyUser: false } });
  });

  it('refuses to impersonate an inactive user (409)', async () => {
    const patched = await call('PATCH', `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users/${userId}`, { active: false });
    expect(patched.statusCode, patched.body).toBe(200);
    const res = await call('POST', `${base}/grants`, { userId, reason: 'why' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('impersonation_grant.user_inactive');
  });

  it('answers userinfo as the user with the act claim, and audits the request on behalf of the user', async () => {
    const { grant, token: impersonation } = await issue({ durationSeconds: 300 });
    const res = await userinfo(impersonation);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({ id: userId, userName: 'ada@example.com' });
    expect(body.act).toEqual({ sub: operatorId, actor_type: 'service_account', grant_id: grant.id });
    expect(body.session.remainingSeconds).toBeGreaterThan(0);
    expect(body.session.remainingSeconds).toBeLessThanOrEqual(300);

    const entries = await auditEntries(t, { tenantId }, { action: 'impersonation.token.use', resourceId: grant.id });
    expect(entries).toEqual([
      expect.objectContaining({
        tenantId,
        environmentId,
        actor: { type: 'service_account', id: operatorId },
        onBehalfOf: { type: 'user', id: userId },
        resource: { type: 'impersonation_grant', id: grant.id },
        changes: { before: null, after: { method: 'GET', path: '/v1/userinfo', statusCode: 200 } },
      }),
    ]);
    const used = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'impersonation.token.used');
    expect(used.map((e) => e.data)).toEqual([
      { grantId: grant.id, userId, operator: { type: 'service_account', id: operatorId }, method: 'GET', path: '/v1/userinfo', statusCode: 200 },
    ]);
    // Other entries have no one they acted for.
    const [created] = await auditEntries(t, { tenantId }, { action: 'impersonation.grant.create', resourceId: grant.id });
    expect(created).toMatchObject({ actor: { type: 'service_account', id: operatorId }, onBehalfOf: null });
  });

  it('is no management credential: every other route refuses it (403), and the attempt is audited', async () => {
    const { grant, token: impersonation } = await issue();
    for (const url of [`${base}/grants`, `/v1/tenants/${tenantId}`, `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`, '/v1/tenants']) {
      const res = await call('GET', url, undefined, impersonation);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('auth.impersonation_token');
    }
    const issueAgain = await call('POST', `${base}/grants`, { userId, reason: 'escalate' }, impersonation);
    expect(issueAgain.statusCode).toBe(403);
    // Nor may it introspect tokens.
    const asCaller = await t.app.inject({ method: 'POST', url: '/v1/oauth/introspect', headers: bearer(impersonation), payload: { token } });
    expect(asCaller.statusCode).toBe(401);
    const refused = await auditEntries(t, { tenantId }, { action: 'impersonation.token.use', resourceId: grant.id });
    expect(refused.map((e) => e.changes?.after)).toContainEqual({ method: 'GET', path: '/v1/tenants/:tenantId', statusCode: 403 });
    expect(refused.every((e) => e.actor.id === operatorId && e.onBehalfOf?.id === userId)).toBe(true);
  });

  it('is issued to whichever operator holds impersonation:write: a user with a personal access token, an organization key', async () => {
    const operator = await userPrincipal(t, { organizationId: t.credentials.organizationId, scopes: ['impersonation:write'] });
    const byUser = await call('POST', `${base}/grants`, { userId, reason: 'Ticket' }, operator.token);
    expect(byUser.statusCode, byUser.body).toBe(201);
    expect(byUser.json().grant.actor).toEqual({ type: 'user', id: operator.user.id });
    expect(decodeJwt(byUser.json().token).act).toEqual({ sub: operator.user.id, actor_type: 'user' });

    const key = await call('POST', `/v1/organizations/${t.credentials.organizationId}/keys`, { name: 'Support desk' });
    expect(key.statusCode, key.body).toBe(201);
    const byKey = await call('POST', `${base}/grants`, { userId, reason: 'Ticket' }, key.json().fullToken);
    expect(byKey.statusCode, byKey.body).toBe(201);
    expect(byKey.json().grant.actor).toEqual({ type: 'organization_key', id: key.json().key.id });
    const res = await userinfo(byKey.json().token);
    expect(res.json().act).toEqual({ sub: key.json().key.id, actor_type: 'organization_key', grant_id: byKey.json().grant.id });
  });

  it('lists grants with who, whom, why and when, filtered by status, user and operator, and gets one', async () => {
    const other = await createUser('grace@example.com');
    const first = await issue();
    const second = await issue({ userId: other, reason: 'Second' });
    await call('POST', `${base}/grants/${first.grant.id}/revoke`, {});

    const list = async (query: Record<string, string> = {}) => {
      const res = await t.app.inject({ method: 'GET', url: `${base}/grants`, query, headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { grants: { id: string; status: string }[]; total: number; nextCursor: string | null; hasMore: boolean };
    };
    const all = await list();
    expect(all).toEqual({
      grants: [expect.objectContaining({ id: second.grant.id }), expect.objectContaining({ id: first.grant.id })],
      total: 2,
      nextCursor: null,
      hasMore: false,
    });
    expect((await list({ status: 'revoked' })).grants.map((g) => g.id)).toEqual([first.grant.id]);
    expect((await list({ status: 'active' })).grants.map((g) => g.id)).toEqual([second.grant.id]);
    expect((await list({ status: 'expired' })).grants).toEqual([]);
    expect((await list({ userId: other })).grants.map((g) => g.id)).toEqual([second.grant.id]);
    expect((await list({ actorId: operatorId })).total).toBe(2);
    expect((await list({ actorId: crypto.randomUUID() })).total).toBe(0);
    const paged = await list({ limit: '1' });
    expect(paged).toMatchObject({ total: 2, hasMore: true, nextCursor: expect.any(String) });
    expect((await list({ limit: '1', cursor: paged.nextCursor! })).grants.map((g) => g.id)).toEqual([first.grant.id]);
    const bad = await t.app.inject({ method: 'GET', url: `${base}/grants`, query: { status: 'gone' }, headers: bearer(token) });
    expect(bad.statusCode).toBe(400);

    const got = await call('GET', `${base}/grants/${second.grant.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ grant: { ...second.grant } });
    expect((await call('GET', `${base}/grants/${crypto.randomUUID()}`)).json().code).toBe('impersonation_grant.not_found');
  });

  it('revokes a grant: its token is refused on the next use and introspection says inactive', async () => {
    const { grant, token: impersonation } = await issue();
    expect((await userinfo(impersonation)).statusCode).toBe(200);
    expect(await introspect(impersonation)).toMatchObject({ active: true, sub: userId, grant_id: grant.id });

    const res = await call('POST', `${base}/grants/${grant.id}/revoke`, { reason: 'Done' });
    expect(res.statusCode, res.body).toBe(200);
    const revoked = res.json().grant;
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: ts, revokedBy: { type: 'service_account', id: operatorId }, revokeReason: 'Done' });

    const refused = await userinfo(impersonation);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('auth.invalid_token');
    expect(await introspect(impersonation)).toEqual({ active: false });

    // Idempotent, with no body at all too.
    const again = await t.app.inject({ method: 'POST', url: `${base}/grants/${grant.id}/revoke`, headers: bearer(token) });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().grant).toEqual(revoked);

    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.subject?.id === grant.id);
    expect(events.map((e) => e.type)).toEqual(['impersonation.grant.created', 'impersonation.token.used', 'impersonation.grant.revoked']);
    expect(events[2]!.data).toEqual({ grant: revoked });
    const [entry] = await auditEntries(t, { tenantId }, { action: 'impersonation.grant.revoke', resourceId: grant.id });
    expect(entry).toMatchObject({ actor: { type: 'service_account', id: operatorId }, changes: { after: expect.objectContaining({ status: 'revoked' }) } });
  });

  it('refuses a revoked token on the next use on another instance too', async () => {
    const second = await buildApp({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey });
    try {
      const { grant, token: impersonation } = await issue();
      // Verified and cached on both instances.
      for (const app of [t.app, second])
        expect((await app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(impersonation) })).statusCode).toBe(200);
      expect((await call('POST', `${base}/grants/${grant.id}/revoke`, {})).statusCode).toBe(200);
      expect((await userinfo(impersonation)).statusCode).toBe(401);
      await expect
        .poll(async () => (await second.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(impersonation) })).statusCode, {
          timeout: 2000,
          interval: 20,
        })
        .toBe(401);
    } finally {
      await second.close();
    }
  });

  it('ends the token when its user is deactivated', async () => {
    const { token: impersonation } = await issue();
    expect((await userinfo(impersonation)).statusCode).toBe(200);
    await call('PATCH', `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users/${userId}`, { active: false });
    expect((await userinfo(impersonation)).statusCode).toBe(401);
  });

  it('carries what a notification needs in the created event when the environment notifies users', async () => {
    const quiet = await issue();
    await call('PUT', `${base}/settings`, { maxDurationMinutes: 30, notifyUser: true });
    const loud = await issue({ reason: 'Tell them' });
    const created = (await tenantEvents(t, tenantId, { environmentId, type: 'impersonation.grant.created' })).map((e) => e.data);
    expect(created).toEqual([
      { grant: quiet.grant },
      {
        grant: loud.grant,
        notification: {
          userId,
          email: 'ada@example.com',
          operator: { type: 'service_account', id: operatorId },
          reason: 'Tell them',
          expiresAt: loud.grant.expiresAt,
        },
      },
    ]);
  });

  it('needs the impersonation scopes', async () => {
    const reader = await t.token('impersonation:read');
    expect((await call('GET', `${base}/grants`, undefined, reader)).statusCode).toBe(200);
    const res = await call('POST', `${base}/grants`, { userId, reason: 'why' }, reader);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('auth.insufficient_scope');
    expect((await call('GET', `${base}/grants`, undefined, await t.token('directory:read'))).statusCode).toBe(403);
  });

  it("is out of reach of another organization (404), and its grants' tokens are inactive to it", async () => {
    const { grant, token: impersonation } = await issue();
    const { token: theirs } = await otherOrganization(t);
    for (const [method, url, payload] of [
      ['GET', `${base}/grants`],
      ['GET', `${base}/grants/${grant.id}`],
      ['POST', `${base}/grants`, { userId, reason: 'why' }],
      ['POST', `${base}/grants/${grant.id}/revoke`, {}],
      ['GET', `${base}/settings`],
      ['PUT', `${base}/settings`, { maxDurationMinutes: 5, notifyUser: false }],
    ] as const) {
      const res = await call(method, url, payload, theirs);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    const res = await t.app.inject({ method: 'POST', url: '/v1/oauth/introspect', headers: bearer(theirs), payload: { token: impersonation } });
    expect(res.json()).toEqual({ active: false });
  });
});
