import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
let org: string;
let tenantA: string;
let tenantB: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  org = t.credentials.organizationId;
  tenantA = t.credentials.tenantId;
  tenantB = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(admin), payload: { name: 'Tenant B' } })).json().tenant.id;
});
afterAll(() => t.close());

const keys = `/v1/organizations/`;
const createKey = (payload: Record<string, unknown>, token = admin, organizationId = org) =>
  t.app.inject({ method: 'POST', url: `${keys}${organizationId}/keys`, headers: bearer(token), payload });
const get = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const tenantIdsListed = async (token: string) => (await get('/v1/tenants', token)).json().tenants.map((x: { id: string }) => x.id);
const poll = (fn: () => Promise<unknown>) => expect.poll(fn, { timeout: 2000, interval: 20 });
// Organization key events belong to no tenant, so no event stream shows them: they are read from the table.
const keyEvents = (keyId: string) =>
  t.pool.any(sql.type(z.object({ type: z.string(), data: z.any() }))`SELECT type, data FROM events WHERE subject->>'id' = ${keyId} ORDER BY sequence`);

const keyShape = {
  id: expect.any(String),
  organizationId: expect.any(String),
  name: expect.any(String),
  prefix: expect.stringMatching(/^adok_/),
  description: null,
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  allTenants: true,
  tenants: [],
  active: true,
};

describe('organization keys', () => {
  it('creates a key shown once, listed and read without its secret', async () => {
    // An organization of its own, so that keys other tests create never show in its list.
    const own = await otherOrganization(t);
    const created = await createKey({ name: 'Deploy bot', description: 'CI' }, own.token, own.organizationId);
    expect(created.statusCode).toBe(201);
    const { key, fullToken } = created.json();
    expect(Object.keys(created.json()).sort()).toEqual(['fullToken', 'key']);
    expect(key).toEqual({ ...keyShape, organizationId: own.organizationId, name: 'Deploy bot', description: 'CI' });
    expect(fullToken).toMatch(/^adok_[0-9A-Za-z]{49}$/);
    expect(fullToken.startsWith(key.prefix)).toBe(true);

    const list = await get(`${keys}${own.organizationId}/keys`, own.token);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ keys: [key], total: 1, nextCursor: null, hasMore: false });
    expect(list.body).not.toContain(fullToken);
    const one = await get(`${keys}${own.organizationId}/keys/${key.id}`, own.token);
    expect(one.json()).toEqual({ key });
  });

  it('works as a bearer token of its organization, records lastUsedAt, and manages no credentials', async () => {
    const { key, fullToken } = (await createKey({ name: 'all tenants' })).json();
    expect((await tenantIdsListed(fullToken)).sort()).toEqual([tenantA, tenantB].sort());
    const created = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(fullToken), payload: { name: 'made by a key' } });
    expect(created.statusCode).toBe(201);
    const [event] = await tenantEvents(t, created.json().tenant.id, { type: 'tenant.created' });
    expect(event!.actor).toEqual({ type: 'organization_key', id: key.id });
    for (const url of [`${keys}${org}/keys`, `${keys}${org}/service-accounts`, '/v1/personal-access-tokens']) {
      expect((await get(url, fullToken)).statusCode, url).toBe(403);
    }
    await poll(async () => (await get(`${keys}${org}/keys/${key.id}`, admin)).json().key.lastUsedAt).toEqual(expect.any(String));
  });

  it('limits a key to listed tenants: others are 404 and unlisted, and PUT tenants applies on the next request', async () => {
    const created = await createKey({ name: 'only A', tenantIds: [tenantA] });
    expect(created.statusCode).toBe(201);
    const { key, fullToken } = created.json();
    expect(key).toMatchObject({ allTenants: false, tenants: [{ id: expect.any(String), tenantId: tenantA, tenantName: 'Default' }] });
    expect(await tenantIdsListed(fullToken)).toEqual([tenantA]);
    expect((await get('/v1/tenants', fullToken)).json().total).toBe(1);
    expect((await get(`/v1/tenants/${tenantA}`, fullToken)).statusCode).toBe(200);
    expect((await get(`/v1/tenants/${tenantB}`, fullToken)).statusCode).toBe(404);
    expect((await get(`/v1/tenants/${tenantB}/events`, fullToken)).statusCode).toBe(404);
    expect((await get(`/v1/tenants/${tenantB}/audit-logs`, fullToken)).statusCode).toBe(404);
    // The organization's audit log spans every tenant, so a limited key cannot read it.
    expect((await get(`${keys}${org}/audit-logs`, fullToken)).statusCode).toBe(404);
    // Nor can it create tenants, which it could not reach.
    const beyond = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(fullToken), payload: { name: 'out of reach' } });
    expect(beyond.statusCode).toBe(403);
    expect(beyond.json().code).toBe('tenant.create_beyond_limit');

    const moved = await t.app.inject({ method: 'PUT', url: `${keys}${org}/keys/${key.id}/tenants`, headers: bearer(admin), payload: { tenantIds: [tenantB] } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().key).toMatchObject({ allTenants: false, tenants: [{ tenantId: tenantB, tenantName: 'Tenant B' }] });
    await poll(() => tenantIdsListed(fullToken)).toEqual([tenantB]);
    expect((await get(`/v1/tenants/${tenantA}`, fullToken)).statusCode).toBe(404);
    expect((await get(`/v1/tenants/${tenantB}`, fullToken)).statusCode).toBe(200);

    const widened = await t.app.inject({ method: 'PUT', url: `${keys}${org}/keys/${key.id}/tenants`, headers: bearer(admin), payload: { allTenants: true } });
    expect(widened.json().key).toMatchObject({ allTenants: true, tenants: [] });
    await poll(async () => (await get(`/v1/tenants/${tenantA}`, fullToken)).statusCode).toBe(200);

    const event = (await keyEvents(key.id)).filter((e) => e.type === 'organization_key.tenants_updated').at(-1);
    expect(event!.data.previous).toEqual({ allTenants: false, tenantIds: [tenantB] });
  });

  it('refuses a revoked key on the next request; DELETE returns the revoked key', async () => {
    const { key, fullToken } = (await createKey({ name: 'to revoke' })).json();
    expect((await get('/v1/tenants', fullToken)).statusCode).toBe(200);
    const revoked = await t.app.inject({ method: 'DELETE', url: `${keys}${org}/keys/${key.id}`, headers: bearer(admin) });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().key).toMatchObject({ id: key.id, active: false, revokedAt: expect.any(String) });
    await poll(async () => (await get('/v1/tenants', fullToken)).statusCode).toBe(401);
    expect((await get('/v1/tenants', fullToken)).json().error).toMatch(/revoked/);
    const again = await t.app.inject({ method: 'DELETE', url: `${keys}${org}/keys/${key.id}`, headers: bearer(admin) });
    expect(again.json().key.revokedAt).toBe(revoked.json().key.revokedAt);
  });

  it('refuses a key once it expires, even while its verification is cached', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { key, fullToken } = (await createKey({ name: 'short', expiresAt })).json();
    expect(key.expiresAt).toBe(expiresAt);
    expect((await get('/v1/tenants', fullToken)).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 50));
    const res = await get('/v1/tenants', fullToken);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatch(/expired/);
    expect((await get(`${keys}${org}/keys/${key.id}`, admin)).json().key.active).toBe(false);
  });

  it('gives a key no scope its creator lacks', async () => {
    const sa = (
      await t.app.inject({
        method: 'POST',
        url: `${keys}${org}/service-accounts`,
        headers: bearer(admin),
        payload: { name: 'key maker', scopes: ['organization-keys:write', 'tenants:read'] },
      })
    ).json();
    const token = await clientCredentialsToken(t.app, sa.serviceAccount.clientId, sa.clientSecret);
    const { fullToken } = (await createKey({ name: 'weak' }, token)).json();
    expect((await get('/v1/tenants', fullToken)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(fullToken), payload: { name: 'no' } })).statusCode).toBe(403);
    expect((await get(`/v1/tenants/${tenantA}/events`, fullToken)).statusCode).toBe(403);
  });

  it('isolates organizations', async () => {
    const other = await otherOrganization(t);
    const { key } = (await createKey({ name: 'mine' })).json();
    expect((await get(`${keys}${org}/keys`, other.token)).statusCode).toBe(404);
    expect((await get(`${keys}${org}/keys/${key.id}`, other.token)).statusCode).toBe(404);
    expect((await get(`${keys}${other.organizationId}/keys/${key.id}`, other.token)).statusCode).toBe(404);
    expect((await createKey({ name: 'x' }, other.token)).statusCode).toBe(404);
    const stray = await createKey({ name: 'x', tenantIds: [tenantA] }, other.token, other.organizationId);
    expect(stray.statusCode).toBe(400);
    expect(stray.json().details).toEqual([{ path: 'body.tenantIds.0', message: 'is not a tenant of this organization' }]);
    const { fullToken } = (await createKey({ name: 'theirs' }, other.token, other.organizationId)).json();
    expect(await tenantIdsListed(fullToken)).toEqual([]);
    expect((await get(`/v1/tenants/${tenantA}`, fullToken)).statusCode).toBe(404);
  });

  it('validates the request', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.name'],
      [{ name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, 'body.expiresAt'],
      [{ name: 'x', allTenants: true, tenantIds: [tenantA] }, 'body.tenantIds'],
      [{ name: 'x', allTenants: false }, 'body.tenantIds'],
      [{ name: 'x', tenantIds: [tenantA, crypto.randomUUID()] }, 'body.tenantIds.1'],
      [{ name: 'x', tenantIds: ['nope'] }, 'body.tenantIds.0'],
      [{ name: 'x', scopes: ['*'] }, 'body.scopes'],
    ];
    for (const [payload, path] of cases) {
      const res = await createKey(payload);
      expect(res.statusCode, path).toBe(400);
      expect(res.json().details?.[0]?.path, JSON.stringify(payload)).toBe(path);
    }
    const { key } = (await createKey({ name: 'x' })).json();
    const empty = await t.app.inject({ method: 'PUT', url: `${keys}${org}/keys/${key.id}/tenants`, headers: bearer(admin), payload: {} });
    expect(empty.statusCode).toBe(400);
    expect((await get(`${keys}${org}/keys/${crypto.randomUUID()}`, admin)).statusCode).toBe(404);
    expect((await get('/v1/tenants', 'adok_0000000000000000000000000000000000000000000000000')).json().code).toBe('auth.invalid_token');
  });

  it('writes audit entries and events without the secret', async () => {
    const { key, fullToken } = (await createKey({ name: 'audited', tenantIds: [tenantA] })).json();
    const put = await t.app.inject({ method: 'PUT', url: `${keys}${org}/keys/${key.id}/tenants`, headers: bearer(admin), payload: { allTenants: true } });
    expect(put.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `${keys}${org}/keys/${key.id}`, headers: bearer(admin) })).statusCode).toBe(200);

    const audit = await auditEntries(t, { organizationId: org }, { resourceType: 'organization_key', resourceId: key.id });
    expect(audit.map((a) => a.action)).toEqual(['organization_key.create', 'organization_key.update_tenants', 'organization_key.revoke']);
    const events = await keyEvents(key.id);
    expect(events.map((e) => e.type)).toEqual(['organization_key.created', 'organization_key.tenants_updated', 'organization_key.revoked']);
    const stored = JSON.stringify([audit, events]);
    expect(stored).not.toContain(fullToken);
    expect(stored).not.toMatch(/adok_[0-9A-Za-z]{49}/);
  });
});
