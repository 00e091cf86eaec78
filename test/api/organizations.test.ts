import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let pat: string; // the bootstrap operator user: owner of the default organization, scope *
let saToken: string;
beforeAll(async () => {
  t = await startTestApp();
  pat = t.credentials.personalAccessToken;
  saToken = await t.token();
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (token: string, method: Method, url: string, payload?: object) =>
  t.app.inject({ method, url: `/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

const orgShape = (fields: Record<string, unknown>) => ({
  id: expect.any(String),
  description: null,
  billingEmail: null,
  logoUri: null,
  active: true,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  ...fields,
});
const defaultOrg = () => orgShape({ id: t.credentials.organizationId, name: 'Default organization' });

// Organization and member events belong to no tenant, so no event stream shows them: they are read from the table.
const Event = z.object({ type: z.string(), data: z.any(), actor: z.any(), organizationId: z.string().nullable(), tenantId: z.string().nullable() });
const organizationEventsAbout = (subjectId: string) =>
  t.pool.any(sql.type(Event)`
  SELECT type, data, actor, organization_id AS "organizationId", tenant_id AS "tenantId" FROM events
  WHERE subject->>'id' = ${subjectId} AND tenant_id IS NULL ORDER BY sequence`);
/** The events about a tenant in its stream, read by the bootstrap user (who reaches every organization it creates). */
const tenantEventsAbout = async (tenantId: string) => (await tenantEvents(t, tenantId, {}, pat)).filter((e) => e.subject?.id === tenantId);
const auditActions = async (scope: { tenantId: string } | { organizationId: string }, resourceId: string) =>
  (await auditEntries(t, scope, { resourceId }, pat)).map((a) => a.action);

async function createOrg(name: string, tenantIds = [t.credentials.tenantId], token = pat) {
  const res = await call(token, 'POST', '/organizations', { name, tenantIds });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().organization as { id: string; name: string };
}
async function createTenant(name: string, organizationId = t.credentials.organizationId) {
  const res = await call(pat, 'POST', '/tenants', { name, organizationId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().tenant as { id: string; name: string; organizationIds: string[] };
}

describe('organizations', () => {
  it('lists the organizations the caller belongs to (a service account: its own, then those it created)', async () => {
    // A member of the default organization only: the organizations other tests create are not theirs.
    const member = await userPrincipal(t, { organizationId: t.credentials.organizationId });
    const res = await call(member.token, 'GET', '/organizations');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ organizations: [defaultOrg()], total: 1, nextCursor: null, hasMore: false });
    const own = await call(saToken, 'GET', '/organizations');
    expect(own.statusCode).toBe(200);
    expect(own.json().organizations[0]).toEqual(defaultOrg());
  });

  it('creates an organization over reachable tenants; the creating user is its owner and reaches it on the next request', async () => {
    const over = await createTenant('Acme tenant');
    const res = await call(pat, 'POST', '/organizations', {
      name: 'Acme',
      description: 'Rockets',
      billingEmail: 'billing@acme.test',
      tenantIds: [over.id],
    });
    expect(res.statusCode).toBe(201);
    const organization = res.json().organization;
    expect(organization).toEqual(orgShape({ name: 'Acme', description: 'Rockets', billingEmail: 'billing@acme.test' }));

    expect((await call(pat, 'GET', `/organizations/${organization.id}`)).json()).toEqual({ organization });
    const list = (await call(pat, 'GET', '/organizations')).json();
    expect(list.organizations.map((o: { id: string }) => o.id)).toContain(organization.id);
    const tenant = (await call(pat, 'GET', `/tenants/${over.id}`)).json().tenant;
    expect(tenant.organizationIds).toEqual([t.credentials.organizationId, organization.id]);

    const members = (await call(pat, 'GET', `/organizations/${organization.id}/members`)).json();
    expect(members).toEqual({
      organization,
      members: [
        {
          id: expect.any(String),
          organizationId: organization.id,
          userId: t.credentials.userId,
          role: 'owner',
          invitedAt: null,
          joinedAt: expect.any(String),
          active: true,
          user: { id: t.credentials.userId, displayName: 'Administrator', emails: ['admin@localhost'] },
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });
    const [event] = await organizationEventsAbout(organization.id);
    expect(event).toEqual({
      type: 'organization.created',
      data: { organization, tenantIds: [over.id] },
      actor: { type: 'user', id: t.credentials.userId },
      organizationId: organization.id,
      tenantId: null,
    });
    expect(await auditActions({ organizationId: organization.id }, organization.id)).toEqual(['organization.create']);
  });

  it('lets a service account of the operator organization create an organization, with no member; refuses those of others', async () => {
    const tenant = (await call(saToken, 'POST', '/tenants', { name: 'Robot works' })).json().tenant;
    const res = await call(saToken, 'POST', '/organizations', { name: 'Robots', tenantIds: [tenant.id] });
    expect(res.statusCode, res.body).toBe(201);
    const organization = res.json().organization;
    expect(organization).toEqual(orgShape({ name: 'Robots' }));
    expect((await call(saToken, 'GET', `/tenants/${tenant.id}`)).json().tenant.organizationIds).toEqual([t.credentials.organizationId, organization.id]);
    const [event] = await organizationEventsAbout(organization.id);
    expect(event).toMatchObject({ type: 'organization.created', actor: { type: 'service_account' }, organizationId: organization.id });
    // No member was made: the service account reaches it as its creator (next test), not as a member.
    const members = await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM organization_members WHERE organization_id = ${organization.id}`);
    expect(members).toBe(0);

    const other = await otherOrganization(t);
    const theirs = (await call(other.token, 'POST', '/tenants', { name: 'Their works' })).json().tenant;
    const refused = await call(other.token, 'POST', '/organizations', { name: 'Rogue', tenantIds: [theirs.id] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error:
        'Only a user (who becomes its owner; use a personal access token) or a service account of the operator organization ' +
        '(which keeps reach over it) can create an organization; this token belongs to a service account of another organization.',
      code: 'auth.user_required',
      requestId: expect.any(String),
    });
    const unreachable = await call(saToken, 'POST', '/organizations', { name: 'Grab', tenantIds: [theirs.id] });
    expect(unreachable.statusCode).toBe(400);
    expect(unreachable.json()).toMatchObject({ code: 'organization.tenant_unreachable', details: [{ path: 'body.tenantIds.0' }] });
  });

  it('lets the service account that created an organization read, list, update and delete it; no other organization reaches it', async () => {
    const tenant = (await call(saToken, 'POST', '/tenants', { name: 'Creator works' })).json().tenant;
    const organization = (await call(saToken, 'POST', '/organizations', { name: 'Created', tenantIds: [tenant.id] })).json().organization;
    const got = await call(saToken, 'GET', `/organizations/${organization.id}`);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().organization).toEqual(organization);
    const listed = (await call(saToken, 'GET', '/organizations?limit=100')).json().organizations.map((o: { id: string }) => o.id);
    expect(listed).toContain(organization.id);
    const renamed = await call(saToken, 'PATCH', `/organizations/${organization.id}`, { name: 'Created and renamed' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().organization).toMatchObject({ id: organization.id, name: 'Created and renamed' });

    const other = await otherOrganization(t);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(other.token, method, `/organizations/${organization.id}`, method === 'PATCH' ? { name: 'Mine' } : undefined);
      expect(res.statusCode, `${method}: ${res.body}`).toBe(404);
    }

    expect((await call(saToken, 'DELETE', `/organizations/${organization.id}/tenants/${tenant.id}`)).statusCode).toBeLessThan(300);
    const deleted = await call(saToken, 'DELETE', `/organizations/${organization.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await call(saToken, 'GET', `/organizations/${organization.id}`)).statusCode).toBe(404);
  });

  it('validates the create body: tenantIds required, non-empty, each reachable', async () => {
    const other = await otherOrganization(t);
    const theirs = (await call(other.token, 'POST', '/tenants', { name: 'Theirs' })).json().tenant;
    const cases: [object, string, string][] = [
      [{ name: 'x' }, 'body.tenantIds', 'request.invalid'],
      [{ name: 'x', tenantIds: [] }, 'body.tenantIds', 'request.invalid'],
      [{ name: ' ', tenantIds: [t.credentials.tenantId] }, 'body.name', 'request.invalid'],
      [{ name: 'x', tenantIds: [t.credentials.tenantId], billingEmail: 'nope' }, 'body.billingEmail', 'request.invalid'],
      [{ name: 'x', tenantIds: [t.credentials.tenantId], logoUri: 'x' }, 'body.logoUri', 'request.invalid'],
      [{ name: 'x', tenantIds: [t.credentials.tenantId, theirs.id] }, 'body.tenantIds.1', 'organization.tenant_unreachable'],
      [{ name: 'x', tenantIds: [crypto.randomUUID()] }, 'body.tenantIds.0', 'organization.tenant_unreachable'],
    ];
    const before = (await call(pat, 'GET', '/organizations')).json().total;
    for (const [payload, path, code] of cases) {
      const res = await call(pat, 'POST', '/organizations', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ code, details: [expect.objectContaining({ path })] });
    }
    expect((await call(pat, 'GET', '/organizations')).json().total).toBe(before);
  });

  it('updates an organization, emitting the previous values', async () => {
    const organization = await createOrg('Before');
    const res = await call(pat, 'PATCH', `/organizations/${organization.id}`, { name: 'After', billingEmail: 'b@x.test' });
    expect(res.statusCode).toBe(200);
    expect(res.json().organization).toEqual({ ...organization, name: 'After', billingEmail: 'b@x.test', updatedAt: expect.any(String) });
    const events = await organizationEventsAbout(organization.id);
    expect(events.map((e) => e.type)).toEqual(['organization.created', 'organization.updated']);
    expect(events[1]!.data).toEqual({ organization: res.json().organization, previous: { name: 'Before', billingEmail: null } });
  });

  it('refuses to delete an organization that owns tenants (409), deletes it once it owns none', async () => {
    const organization = await createOrg('Short-lived');
    const refused = await call(pat, 'DELETE', `/organizations/${organization.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'organization.has_tenants' });
    expect((await call(pat, 'DELETE', `/organizations/${organization.id}/tenants/${t.credentials.tenantId}`)).statusCode).toBe(200);
    const deleted = await call(pat, 'DELETE', `/organizations/${organization.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().organization).toMatchObject({ id: organization.id, name: 'Short-lived' });
    expect((await call(pat, 'GET', `/organizations/${organization.id}`)).statusCode).toBe(404);
    expect((await organizationEventsAbout(organization.id)).map((e) => e.type)).toEqual(['organization.created', 'organization.deleted']);
  });

  it('needs organizations:write to change and organizations:read to read', async () => {
    const reader = await t.token('organizations:read');
    expect((await call(reader, 'GET', '/organizations')).statusCode).toBe(200);
    const res = await call(reader, 'PATCH', `/organizations/${t.credentials.organizationId}`, { name: 'x' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('auth.insufficient_scope');
    expect((await call(await t.token('tenants:read'), 'GET', '/organizations')).statusCode).toBe(403);
  });
});

describe('organization members', () => {
  it('deactivates a member (effective on their next request), reactivates, and removes them', async () => {
    const organization = await createOrg('Team');
    const { user, token } = await userPrincipal(t, { organizationId: organization.id });
    const url = `/organizations/${organization.id}/members`;
    const member = (await call(pat, 'GET', url)).json().members.find((m: { userId: string }) => m.userId === user.id);
    expect(member).toMatchObject({ role: 'member', active: true, user: { id: user.id, displayName: user.displayName, emails: [user.userName] } });
    expect((await call(token, 'GET', `/organizations/${organization.id}`)).statusCode).toBe(200);

    const off = await call(pat, 'PATCH', `${url}/${member.id}`, { active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({
      organization: expect.objectContaining({ id: organization.id }),
      member: { ...member, active: false, updatedAt: expect.any(String) },
    });
    await expect.poll(async () => (await call(token, 'GET', `/organizations/${organization.id}`)).statusCode, { timeout: 2000, interval: 20 }).toBe(404);

    expect((await call(pat, 'PATCH', `${url}/${member.id}`, { active: true })).json().member.active).toBe(true);
    await expect.poll(async () => (await call(token, 'GET', `/organizations/${organization.id}`)).statusCode, { timeout: 2000, interval: 20 }).toBe(200);

    const removed = await call(pat, 'DELETE', `${url}/${member.id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().member).toMatchObject({ id: member.id, userId: user.id });
    await expect.poll(async () => (await call(token, 'GET', `/organizations/${organization.id}`)).statusCode, { timeout: 2000, interval: 20 }).toBe(404);
    expect((await call(pat, 'GET', url)).json().total).toBe(1);

    const events = await organizationEventsAbout(member.id);
    expect(events.map((e) => e.type)).toEqual(['organization.member.updated', 'organization.member.updated', 'organization.member.removed']);
    expect(events[0]!.data).toEqual({ member: off.json().member, previous: { active: true } });
  });

  it('keeps an active owner (409 organization_member.last_owner) and 404s unknown members', async () => {
    const organization = await createOrg('Owned');
    const url = `/organizations/${organization.id}/members`;
    const [owner] = (await call(pat, 'GET', url)).json().members;
    for (const [method, payload] of [
      ['PATCH', { active: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(pat, method, `${url}/${owner.id}`, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'organization_member.last_owner' });
    }
    const second = await userPrincipal(t, { organizationId: organization.id, role: 'owner' });
    expect((await call(pat, 'PATCH', `${url}/${owner.id}`, { active: false })).statusCode).toBe(200);
    expect((await call(second.token, 'PATCH', `${url}/${owner.id}`, { active: true })).statusCode).toBe(200);

    const missing = await call(pat, 'PATCH', `${url}/${crypto.randomUUID()}`, { active: false });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('organization_member.not_found');
    const defaultOwner = (await call(pat, 'GET', `/organizations/${t.credentials.organizationId}/members`)).json().members[0];
    expect((await call(pat, 'DELETE', `${url}/${defaultOwner.id}`)).statusCode).toBe(404); // a member of another organization
    const bad = await call(pat, 'PATCH', `${url}/${owner.id}`, {});
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('body.active');
  });
});

describe('tenant links and transfer', () => {
  it('links and unlinks a tenant, keeping at least one organization per tenant', async () => {
    const tenant = await createTenant('Linked');
    const organization = await createOrg('Linker');
    const url = `/organizations/${organization.id}/tenants`;
    const linked = await call(pat, 'POST', url, { tenantId: tenant.id });
    expect(linked.statusCode).toBe(200);
    expect(linked.json()).toEqual({ organization });
    expect((await call(pat, 'GET', `/tenants/${tenant.id}`)).json().tenant.organizationIds).toEqual([t.credentials.organizationId, organization.id]);
    const again = await call(pat, 'POST', url, { tenantId: tenant.id });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('organization.tenant_already_linked');

    expect((await call(pat, 'DELETE', `/organizations/${t.credentials.organizationId}/tenants/${tenant.id}`)).statusCode).toBe(200);
    const last = await call(pat, 'DELETE', `${url}/${tenant.id}`);
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('organization.last_organization_of_tenant');
    expect((await call(pat, 'DELETE', `/organizations/${t.credentials.organizationId}/tenants/${tenant.id}`)).statusCode).toBe(404);

    const events = await tenantEventsAbout(tenant.id);
    expect(events.map((e) => [e.type, e.organizationId])).toEqual([
      ['tenant.created', t.credentials.organizationId],
      ['organization.tenant.linked', organization.id],
      ['organization.tenant.unlinked', t.credentials.organizationId],
    ]);
    expect(events[2]!.data).toEqual({
      organizationId: t.credentials.organizationId,
      tenant: expect.objectContaining({ id: tenant.id, organizationIds: [organization.id] }),
    });
  });

  it('transfers a tenant to another organization of the caller after confirming its name', async () => {
    const tenant = await createTenant('Moving Co');
    const target = await createOrg('Target');
    const url = `/tenants/${tenant.id}/transfer`;
    const wrong = await call(pat, 'POST', url, { targetOrganizationId: target.id, confirmationName: 'moving co' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'tenant.confirmation_mismatch', details: [{ path: 'body.confirmationName', message: expect.any(String) }] });
    const other = await otherOrganization(t);
    const foreign = await call(pat, 'POST', url, { targetOrganizationId: other.organizationId, confirmationName: 'Moving Co' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('organization.not_found');

    const moved = await call(pat, 'POST', url, { targetOrganizationId: target.id, confirmationName: 'Moving Co' });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toEqual({ tenant: { ...tenant, organizationIds: [target.id] } });
    const again = await call(pat, 'POST', url, { targetOrganizationId: target.id, confirmationName: 'Moving Co' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('tenant.already_in_organization');
    // The service account of the default organization no longer reaches the tenant.
    expect((await call(saToken, 'GET', `/tenants/${tenant.id}`)).statusCode).toBe(404);
    const event = (await tenantEventsAbout(tenant.id)).at(-1);
    expect(event).toMatchObject({
      type: 'tenant.transferred',
      organizationId: target.id,
      tenantId: tenant.id,
      data: { tenant: moved.json().tenant, fromOrganizationIds: [t.credentials.organizationId], toOrganizationId: target.id },
    });
    expect(await auditActions({ tenantId: tenant.id }, tenant.id)).toEqual(['tenant.create', 'tenant.transfer']);
  });
});

describe('isolation', () => {
  it('a principal of another organization gets 404 for everything of this one', async () => {
    const other = await otherOrganization(t);
    const organization = await createOrg('Private');
    const tenant = await createTenant('Private tenant');
    const [member] = (await call(pat, 'GET', `/organizations/${organization.id}/members`)).json().members;
    const o = `/organizations/${organization.id}`;
    const requests: [Method, string, object?][] = [
      ['GET', o],
      ['PATCH', o, { name: 'mine' }],
      ['DELETE', o],
      ['GET', `${o}/members`],
      ['PATCH', `${o}/members/${member.id}`, { active: false }],
      ['DELETE', `${o}/members/${member.id}`],
      ['POST', `${o}/tenants`, { tenantId: t.credentials.tenantId }],
      ['DELETE', `${o}/tenants/${t.credentials.tenantId}`],
      ['POST', `/tenants/${tenant.id}/transfer`, { targetOrganizationId: other.organizationId, confirmationName: 'Private tenant' }],
    ];
    for (const [method, url, payload] of requests) {
      const res = await call(other.token, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    // Their own organization cannot take a tenant they do not reach, nor link ours.
    const link = await call(other.token, 'POST', `/organizations/${other.organizationId}/tenants`, { tenantId: tenant.id });
    expect(link.statusCode).toBe(404);
    expect(link.json().code).toBe('tenant.not_found');
    expect((await call(other.token, 'GET', '/organizations')).json()).toEqual({
      organizations: [expect.objectContaining({ id: other.organizationId })],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });
    expect((await call(pat, 'GET', o)).json().organization).toEqual(organization);
  });

  it("a tenant seat gives no say over the tenant's organizations: no link, no new organization over it, no transfer", async () => {
    const tenant = await createTenant('Seated');
    const other = await otherOrganization(t);
    const guest = await userPrincipal(t, { organizationId: other.organizationId, role: 'owner' });
    const seat = await call(pat, 'POST', `/tenants/${tenant.id}/invites`, { email: guest.email });
    expect(seat.statusCode, seat.body).toBeLessThan(300);
    expect((await call(guest.token, 'POST', '/tenants/join', { invitationCode: seat.json().invitationCode })).statusCode).toBe(200);
    await expect.poll(async () => (await call(guest.token, 'GET', `/tenants/${tenant.id}`)).statusCode, { timeout: 2000, interval: 20 }).toBe(200); // the seat works

    const link = await call(guest.token, 'POST', `/organizations/${other.organizationId}/tenants`, { tenantId: tenant.id });
    expect(link.statusCode).toBe(404);
    const created = await call(guest.token, 'POST', '/organizations', { name: 'Grab', tenantIds: [tenant.id] });
    expect(created.statusCode).toBe(400);
    expect(created.json().details[0].path).toBe('body.tenantIds.0');
    const transfer = await call(guest.token, 'POST', `/tenants/${tenant.id}/transfer`, {
      targetOrganizationId: other.organizationId,
      confirmationName: 'Seated',
    });
    expect(transfer.statusCode).toBe(404);
    expect((await call(pat, 'GET', `/tenants/${tenant.id}`)).json().tenant.organizationIds).toEqual([t.credentials.organizationId]);
  });
});
