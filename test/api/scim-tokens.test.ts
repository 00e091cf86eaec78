// Provisioning tokens: shown once, stored as hashes, rotated with a grace period, revoked and deleted with effect on
// the next request; an adscim_ token serves SCIM only, and selects its own environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ERROR, scim, scimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let token: string;
let base: string;
let tenantId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  const env = await newEnvironments(t);
  tenantId = env.tenantId;
  base = `/v1/tenants/${tenantId}/environments/${env.environmentIds[0]}/provisioning-tokens`;
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const create = async (body: object = {}) => {
  const res = await api('POST', base, { name: 'Entra ID', kind: 'scim', ...body });
  expect(res.statusCode).toBe(201);
  return res.json() as { provisioningToken: { id: string; prefix: string }; token: string };
};
const users = (value: string) => scim(t, value, 'GET', '/Users?count=1');

describe('provisioning tokens', () => {
  it('creates a token shown once, lists and gets it without its value', async () => {
    const created = await create({ description: 'Gallery app' });
    expect(created.token).toMatch(/^adscim_[0-9A-Za-z]{49}$/);
    expect(created.provisioningToken).toEqual({
      id: expect.any(String),
      environmentId: expect.any(String),
      name: 'Entra ID',
      description: 'Gallery app',
      kind: 'scim',
      prefix: created.token.slice(0, 15),
      hint: created.token.slice(-4),
      expiresAt: null,
      lastUsedAt: null,
      previousTokenExpiresAt: null,
      revokedAt: null,
      rateLimitPerMinute: null,
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await api('GET', `${base}/${created.provisioningToken.id}`);
    expect(got.json()).toEqual({ provisioningToken: created.provisioningToken });
    const list = await api('GET', `${base}?limit=200`);
    expect(list.json()).toMatchObject({ total: expect.any(Number), hasMore: false, nextCursor: null });
    expect(list.body).not.toContain(created.token);

    expect((await users(created.token)).status).toBe(200);
    await expect.poll(async () => (await api('GET', `${base}/${created.provisioningToken.id}`)).json().provisioningToken.lastUsedAt).not.toBeNull();

    const hris = await create({ kind: 'hris' });
    expect(hris.token).toMatch(/^adhris_/);
  });

  it.each([
    [{ kind: 'ldap' }, 'body.kind'],
    [{ name: '' }, 'body.name'],
    [{ expiresAt: '2000-01-01T00:00:00Z' }, 'body.expiresAt'],
    [{ token: 'adscim_mine' }, 'body.token'],
  ])('refuses %j with a 400 naming %s', async (body, path) => {
    const res = await api('POST', base, { name: 'x', kind: 'scim', ...body });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path, message: expect.any(String) }]);
  });

  it('refuses an hris token, an environment API secret, a management token and a forged token on SCIM with a SCIM 401', async () => {
    const hris = await create({ kind: 'hris' });
    const secret = (await api('POST', base.replace('provisioning-tokens', 'api-secrets'), { name: 's', purposes: ['authzen'] })).json().secret;
    const { token: real } = await create();
    for (const value of [hris.token, secret, token, `adscim_${'0'.repeat(49)}`, real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A')]) {
      const res = await users(value);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ schemas: [ERROR], status: '401', detail: expect.any(String) });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="iam"/);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/v1/scim/v2/Users' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ status: '401', detail: expect.stringMatching(/provisioning token/) });
  });

  it('rotates: the new value works, the previous one during the grace period only', async () => {
    const { provisioningToken, token: old } = await create();
    const graceful = await api('POST', `${base}/${provisioningToken.id}/rotate`, { gracePeriodSeconds: 3600 });
    expect(graceful.statusCode).toBe(200);
    const { token: second } = graceful.json();
    expect(second).toMatch(/^adscim_/);
    expect(graceful.json().provisioningToken.previousTokenExpiresAt).not.toBeNull();
    expect((await users(old)).status).toBe(200);
    expect((await users(second)).status).toBe(200);

    const abrupt = await api('POST', `${base}/${provisioningToken.id}/rotate`, { gracePeriodSeconds: 0 });
    const third = abrupt.json().token;
    expect((await users(second)).status).toBe(401);
    expect((await users(old)).status).toBe(401);
    expect((await users(third)).status).toBe(200);
  });

  it('revokes and deletes with effect on the next request, recorded as events and audit entries', async () => {
    const { provisioningToken, token: value } = await create();
    expect((await users(value)).status).toBe(200);
    const revoked = await api('POST', `${base}/${provisioningToken.id}/revoke`);
    expect(revoked.json().provisioningToken).toMatchObject({ active: false, revokedAt: expect.any(String) });
    const refused = await users(value);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/revoked/);
    expect((await api('POST', `${base}/${provisioningToken.id}/rotate`)).statusCode).toBe(409);

    const other = await create();
    expect((await users(other.token)).status).toBe(200);
    expect((await api('DELETE', `${base}/${other.provisioningToken.id}`)).json()).toEqual({ success: true, id: other.provisioningToken.id });
    expect((await users(other.token)).status).toBe(401);
    expect((await api('GET', `${base}/${other.provisioningToken.id}`)).statusCode).toBe(404);

    const types = (await tenantEvents(t, tenantId, { type: 'provisioning_token.revoked' })).map((e) => (e.data.provisioningToken as { id: string }).id);
    expect(types).toContain(provisioningToken.id);
    const deleted = await tenantEvents(t, tenantId, { type: 'provisioning_token.deleted' });
    expect(deleted.map((e) => e.subject?.id)).toContain(other.provisioningToken.id);
    const audit = await auditEntries(t, { tenantId }, { resourceId: provisioningToken.id });
    expect(audit.map((a) => a.action)).toEqual(['provisioning_token.create', 'provisioning_token.revoke']);
    expect(JSON.stringify(audit)).not.toContain(value);
  });

  it('selects its own environment: a token never sees the users of another', async () => {
    const a = await scimEnvironment(t);
    const b = await scimEnvironment(t);
    const created = await scim(t, a.token, 'POST', '/Users', { schemas: [], userName: 'only-in-a@example.com' });
    expect(created.status).toBe(201);
    expect((await scim(t, b.token, 'GET', `/Users/${created.body.id}`)).status).toBe(404);
    expect((await scim(t, b.token, 'GET', '/Users?filter=userName eq "only-in-a@example.com"')).body.totalResults).toBe(0);
    expect((await scim(t, b.token, 'DELETE', `/Users/${created.body.id}`)).status).toBe(404);
    expect((await scim(t, a.token, 'GET', `/Users/${created.body.id}`)).status).toBe(200);
    const group = await scim(t, a.token, 'POST', '/Groups', { displayName: 'Only in A', members: [{ value: created.body.id }] });
    expect((await scim(t, b.token, 'GET', `/Groups/${group.body.id}`)).status).toBe(404);
    expect((await scim(t, b.token, 'PATCH', `/Groups/${group.body.id}`, { Operations: [{ op: 'remove', path: 'members' }] })).status).toBe(404);
    expect((await scim(t, b.token, 'GET', '/Groups')).body.totalResults).toBe(0);
    // B's group cannot take A's user as a member.
    const theirs = await scim(t, b.token, 'POST', '/Groups', { displayName: 'In B', members: [{ value: created.body.id }] });
    expect(theirs.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });
});
