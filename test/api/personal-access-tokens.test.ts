import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let pat: string;
beforeAll(async () => {
  t = await startTestApp();
  pat = t.credentials.personalAccessToken;
});
afterAll(() => t.close());

const tokenShape = {
  id: expect.any(String),
  name: expect.any(String),
  environmentId: expect.any(String),
  userId: expect.any(String),
  slug: expect.any(String),
  prefix: expect.stringMatching(/^adpat_/),
  expiresAt: null,
  lastUsedAt: expect.toBeOneOf([null, expect.any(String)]),
  revokedAt: null,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  active: true,
  scopes: expect.any(Array),
};

describe('personal access tokens', () => {
  it('creates a token shown once, usable at once, listed without its secret', async () => {
    // A user of its own, holding one token: the tokens other tests create never show in its list.
    const owner = await userPrincipal(t, { organizationId: t.credentials.organizationId });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/personal-access-tokens',
      headers: bearer(owner.token),
      payload: { name: 'CI deploys', scopes: ['tenants:read'] },
    });
    expect(created.statusCode).toBe(201);
    const { token, fullToken } = created.json();
    expect(token).toEqual({
      ...tokenShape,
      name: 'CI deploys',
      slug: 'ci-deploys',
      scopes: ['tenants:read'],
      userId: owner.user.id,
      environmentId: t.credentials.environmentId,
    });
    expect(fullToken).toMatch(/^adpat_[0-9A-Za-z]{49}$/);
    expect(fullToken.startsWith(token.prefix)).toBe(true);

    const read = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(fullToken) });
    expect(read.statusCode).toBe(200);
    const write = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(fullToken), payload: { name: 'no' } });
    expect(write.statusCode).toBe(403);

    const list = await t.app.inject({ method: 'GET', url: '/v1/personal-access-tokens', headers: bearer(owner.token) });
    expect(list.json().total).toBe(2);
    expect(list.body).not.toContain(fullToken);
    const listed = list.json().tokens.find((x: { id: string }) => x.id === token.id);
    await expect
      .poll(async () => {
        const rows = await t.pool.any(
          sql.type(z.object({ last: z.string().nullable() }))`SELECT last_used_at AS last FROM personal_access_tokens WHERE id = ${token.id}`,
        );
        return rows[0]?.last;
      })
      .toEqual(expect.any(String));
    expect(listed).toMatchObject({ id: token.id, prefix: token.prefix });
  });

  it('refuses a revoked token on the very next request', async () => {
    const { token, fullToken } = (
      await t.app.inject({ method: 'POST', url: '/v1/personal-access-tokens', headers: bearer(pat), payload: { name: 'short-lived' } })
    ).json();
    expect((await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(fullToken) })).statusCode).toBe(200);
    const revoked = await t.app.inject({ method: 'POST', url: `/v1/personal-access-tokens/${token.id}/revoke`, headers: bearer(pat) });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().token).toMatchObject({ id: token.id, active: false, revokedAt: expect.any(String) });
    await expect
      .poll(async () => (await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(fullToken) })).statusCode, { timeout: 2000, interval: 20 })
      .toBe(401);
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(fullToken) });
    expect(res.json().error).toMatch(/revoked/);
  });

  it('refuses an expired token', async () => {
    const { token, fullToken } = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/personal-access-tokens',
        headers: bearer(pat),
        payload: { name: 'exp', expiresAt: new Date(Date.now() + 60_000).toISOString() },
      })
    ).json();
    expect(token.expiresAt).toEqual(expect.any(String));
    await t.pool.query(sql.unsafe`UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE id = ${token.id}`);
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(fullToken) });
    expect(res.statusCode).toBe(401);
  });

  it('validates the request', async () => {
    const past = await t.app.inject({
      method: 'POST',
      url: '/v1/personal-access-tokens',
      headers: bearer(pat),
      payload: { name: 'x', expiresAt: '2001-01-01T00:00:00Z' },
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().details).toEqual([{ path: 'body.expiresAt', message: 'must be in the future' }]);
    const unknownScope = await t.app.inject({
      method: 'POST',
      url: '/v1/personal-access-tokens',
      headers: bearer(pat),
      payload: { name: 'x', scopes: ['root'] },
    });
    expect(unknownScope.statusCode).toBe(400);
    expect(unknownScope.json().details[0]).toEqual({ path: 'body.scopes.0', message: 'root is not a known scope' });
  });

  it('limits a new token to the scopes of the token that creates it', async () => {
    const { fullToken } = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/personal-access-tokens',
        headers: bearer(pat),
        payload: { name: 'pat-admin', scopes: ['personal-access-tokens:write'] },
      })
    ).json();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/personal-access-tokens',
      headers: bearer(fullToken),
      payload: { name: 'escalate', scopes: ['tenants:write'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('personal_access_token.scope_not_held');
  });

  it('is for users only: a service account gets 403', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/personal-access-tokens', headers: bearer(await t.token()) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('auth.user_required');
  });

  it('writes an audit entry and an event for create and revoke', async () => {
    const { token, fullToken } = (
      await t.app.inject({ method: 'POST', url: '/v1/personal-access-tokens', headers: bearer(pat), payload: { name: 'audited' } })
    ).json();
    expect((await t.app.inject({ method: 'POST', url: `/v1/personal-access-tokens/${token.id}/revoke`, headers: bearer(pat) })).statusCode).toBe(200);
    // A token belongs to no organization or tenant, so no audit log or event stream shows these: they are read from the tables.
    const rows = await t.pool.any(sql.type(z.object({ action: z.string() }))`SELECT action FROM audit_logs WHERE resource_id = ${token.id} ORDER BY sequence`);
    expect(rows.map((r) => r.action)).toEqual(['personal_access_token.create', 'personal_access_token.revoke']);
    const events = await t.pool.any(
      sql.type(z.object({ type: z.string(), data: z.any() }))`SELECT type, data FROM events WHERE subject->>'id' = ${token.id} ORDER BY sequence`,
    );
    expect(events.map((e) => e.type)).toEqual(['personal_access_token.created', 'personal_access_token.revoked']);
    expect(JSON.stringify(events)).not.toContain(fullToken);
    expect(JSON.stringify(events)).not.toMatch(/adpat_[0-9A-Za-z]{49}/);
  });
});

describe('GET /v1/userinfo', () => {
  it('returns the user of a PAT with the SPEC shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(pat) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      meta: { code: 200, message: 'OK' },
      session: { remainingSeconds: null },
      user: {
        id: t.credentials.userId,
        externalId: expect.any(String),
        userName: 'admin@localhost',
        displayName: 'Administrator',
        nickName: null,
        profileUrl: null,
        title: null,
        userType: null,
        preferredLanguage: null,
        locale: null,
        timezone: null,
        active: true,
        names: null,
        photos: [],
        phoneNumbers: [],
        addresses: [],
        emails: [{ id: expect.any(String), value: 'admin@localhost', type: 'work' }],
        verifications: [{ id: expect.any(String), email: 'admin@localhost', verified: true, createdAt: expect.any(String), updatedAt: expect.any(String) }],
        provider: 'local',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        environmentId: t.credentials.environmentId,
      },
    });
  });

  it('counts the remaining seconds of an expiring token', async () => {
    const { fullToken } = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/personal-access-tokens',
        headers: bearer(pat),
        payload: { name: 'hour', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      })
    ).json();
    const res = await t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(fullToken) });
    expect(res.json().session.remainingSeconds).toBeGreaterThan(3590);
    expect(res.json().session.remainingSeconds).toBeLessThanOrEqual(3600);
  });

  it('is 403 for a service account', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(await t.token()) });
    expect(res.statusCode).toBe(403);
  });
});
