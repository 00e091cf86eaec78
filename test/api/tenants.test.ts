import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(() => t.close());

const tenantShape = (fields: Record<string, unknown>) => ({
  id: expect.any(String),
  description: null,
  company: null,
  active: true,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  organizationIds: [t.credentials.organizationId],
  ...fields,
});

/** The audit entries of a tenant (of the default organization), oldest first; they outlive the tenant. */
const auditOf = (resourceId: string) => auditEntries(t, { organizationId: t.credentials.organizationId }, { resourceType: 'tenant', resourceId });

describe('tenants', () => {
  it('lists the reachable tenants with total', async () => {
    // An organization of its own, so that tenants other tests create never show in its list.
    const org = await otherOrganization(t);
    const create = (name: string) => t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(org.token), payload: { name } });
    const acme = (await create('Acme')).json().tenant;
    const globex = (await create('Globex')).json().tenant;
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(org.token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tenants: [
        tenantShape({ id: acme.id, name: 'Acme', organizationIds: [org.organizationId] }),
        tenantShape({ id: globex.id, name: 'Globex', organizationIds: [org.organizationId] }),
      ],
      total: 2,
      nextCursor: null,
      hasMore: false,
    });
  });

  it('lists the tenant made on first start', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants?limit=200', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json().tenants[0]).toEqual(tenantShape({ id: t.credentials.tenantId, name: 'Default', description: 'Created on first start' }));
  });

  it('creates, reads, updates and deletes a tenant, auditing and emitting each change', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: { ...bearer(token), 'x-request-id': 'req-create-1' },
      payload: { name: 'Acme', company: 'Acme Inc.' },
    });
    expect(created.statusCode).toBe(201);
    const tenant = created.json().tenant;
    expect(tenant).toEqual(tenantShape({ name: 'Acme', company: 'Acme Inc.' }));

    const got = await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenant.id}`, headers: bearer(token) });
    expect(got.json()).toEqual({ tenant });

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/tenants/${tenant.id}`,
      headers: bearer(token),
      payload: { description: 'Rockets', company: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().tenant).toEqual({ ...tenant, description: 'Rockets', company: null, updatedAt: expect.any(String) });
    const events = await tenantEvents(t, tenant.id);

    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/tenants/${tenant.id}`, headers: bearer(token) });
    expect(deleted.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenant.id}`, headers: bearer(token) })).statusCode).toBe(404);

    const audit = await auditOf(tenant.id);
    expect(audit.map((a) => a.action)).toEqual(['tenant.create', 'tenant.update', 'tenant.delete']);
    expect(audit[0]).toMatchObject({ actor: { type: 'service_account' }, requestId: 'req-create-1' });
    expect(audit[1]!.changes).toEqual({
      before: { description: null, company: 'Acme Inc.', updatedAt: expect.any(String) },
      after: { description: 'Rockets', company: null, updatedAt: expect.any(String) },
    });
    expect(events.map((e) => e.type)).toEqual(['tenant.created', 'tenant.updated']);
    expect(events[1]!.data).toEqual({ tenant: patched.json().tenant, previous: { description: null, company: 'Acme Inc.' } });
    // No API shows the stream of a deleted tenant: its last event is read from the table.
    const deletedEvents = await t.pool.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE tenant_id = ${tenant.id} AND type = 'tenant.deleted'`);
    expect(deletedEvents).toEqual(['tenant.deleted']);
  });

  it('pages with limit and offset, or with the opaque cursor of the previous page', async () => {
    const org = await otherOrganization(t);
    for (const name of ['p1', 'p2', 'p3']) await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(org.token), payload: { name } });
    const list = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/v1/tenants?${query}`, headers: bearer(org.token) });
      expect(res.statusCode).toBe(200);
      const { tenants, ...page } = res.json();
      return { names: tenants.map((x: { name: string }) => x.name), ...page };
    };
    expect(await list('limit=2&offset=1')).toEqual({ names: ['p2', 'p3'], total: 3, nextCursor: null, hasMore: false });
    const first = await list('limit=2');
    expect(first).toEqual({ names: ['p1', 'p2'], total: 3, nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/), hasMore: true });
    expect(await list(`limit=2&cursor=${first.nextCursor}`)).toEqual({ names: ['p3'], total: 3, nextCursor: null, hasMore: false });
    expect(await list('limit=2&offset=3')).toEqual({ names: [], total: 3, nextCursor: null, hasMore: false });
    const bad = await t.app.inject({ method: 'GET', url: '/v1/tenants?cursor=nonsense', headers: bearer(org.token) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'querystring.cursor', message: 'is not a cursor returned by this API' }]);
  });

  it('404s a missing tenant and changes nothing on invalid input', async () => {
    const missing = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${crypto.randomUUID()}`, headers: bearer(token), payload: { name: 'x' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('tenant.not_found');
    const bad = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(token), payload: { name: '   ' } });
    expect(bad.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(token) })).json().tenant.name).toBe('Default');
  });

  it('hides tenants of other organizations (404, never 403) and lists only reachable ones', async () => {
    const other = await otherOrganization(t);
    const theirs = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'Theirs' } })).json().tenant;
    expect(theirs.organizationIds).toEqual([other.organizationId]);
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.app.inject({ method, url: `/v1/tenants/${theirs.id}`, headers: bearer(token), ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(404);
    }
    const mine = (await t.app.inject({ method: 'GET', url: '/v1/tenants?limit=200', headers: bearer(token) })).json();
    expect(mine.tenants.map((x: { id: string }) => x.id)).not.toContain(theirs.id);
    const theirList = (await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(other.token) })).json();
    expect(theirList).toEqual({ tenants: [{ ...theirs }], total: 1, nextCursor: null, hasMore: false });
    const foreignOrg = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: bearer(token),
      payload: { name: 'x', organizationId: other.organizationId },
    });
    expect(foreignOrg.statusCode).toBe(400);
    expect(foreignOrg.json().details[0].path).toBe('body.organizationId');
  });

  it('protects the tenant holding the operators: never deleted (409 tenant.protected), nor taken from the operator organization', async () => {
    const operators = t.credentials.tenantId;
    const org = t.credentials.organizationId;
    const pat = t.credentials.personalAccessToken;
    const call = (bearerToken: string, method: 'POST' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url: `/v1${url}`, headers: bearer(bearerToken), ...(payload ? { payload } : {}) });
    const key = (await call(token, 'POST', `/organizations/${org}/keys`, { name: 'tenant admin' })).json().fullToken as string;
    // Another organization the tenant is linked to: its principals reach the tenant too.
    const linked = (await call(pat, 'POST', '/organizations', { name: 'Linked', tenantIds: [operators] })).json().organization;
    for (const credential of [key, token, pat]) {
      const res = await call(credential, 'DELETE', `/tenants/${operators}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'tenant.protected', requestId: expect.any(String) });
    }
    expect((await call(pat, 'DELETE', `/organizations/${org}/tenants/${operators}`)).json().code).toBe('tenant.protected');
    const transfer = await call(pat, 'POST', `/tenants/${operators}/transfer`, { targetOrganizationId: linked.id, confirmationName: 'Default' });
    expect(transfer.statusCode).toBe(409);
    expect(transfer.json().code).toBe('tenant.protected');
    // The operators' environment is intact: their tokens work and invites find it.
    expect((await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(pat) })).statusCode).toBe(200);
    expect((await call(pat, 'POST', `/organizations/${org}/invites`, { email: 'after.attempts@example.com' })).statusCode).toBe(201);
    expect((await tenantEvents(t, operators)).map((e) => e.type)).not.toContain('tenant.deleted');
    // The other organization's link is an ordinary one.
    expect((await call(pat, 'DELETE', `/organizations/${linked.id}/tenants/${operators}`)).statusCode).toBe(200);
    expect((await call(pat, 'DELETE', `/organizations/${linked.id}`)).statusCode).toBe(200);
  });

  it('serialises concurrent updates of one tenant: both succeed, the audit holds both', async () => {
    const tenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name: 'race' } })).json().tenant;
    const results = await Promise.all(
      ['a', 'b'].map((name) => t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.id}`, headers: bearer(token), payload: { name } })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    const audit = await auditOf(tenant.id);
    expect(audit.filter((a) => a.action === 'tenant.update')).toHaveLength(2);
  });
});
