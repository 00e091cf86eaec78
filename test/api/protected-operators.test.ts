// Operators (users holding management scopes, in the bootstrap environment) are protected principals: no directory,
// SCIM or HRIS write reaches them unless the caller may manage operators (a user or service account holding every
// scope the operator holds), and provisioning tokens neither see nor change them.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { EMPLOYEE, GROUP, hris, patch, scim, USER } from '../helpers/scim.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let admin: string;
let tenantId: string;
let environmentId: string;
let directory: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  tenantId = t.credentials.tenantId;
  environmentId = t.credentials.environmentId;
  directory = `/v1/tenants/${tenantId}/environments/${environmentId}/directory`;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (token: string, method: Method, url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const alive = async (token: string) => (await call(token, 'GET', '/v1/tenants')).statusCode;
const userOf = async (id: string) => (await call(admin, 'GET', `${directory}/users/${id}`)).json().user;

/** A provisioning token of the operators' environment, minted by a token holding only provisioning-tokens:write. */
async function provisioningToken(kind: 'scim' | 'hris') {
  const minter = await t.token('provisioning-tokens:write');
  const res = await call(minter, 'POST', `/v1/tenants/${tenantId}/environments/${environmentId}/provisioning-tokens`, { name: `IdP ${kind}`, kind });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token as string;
}

/** An organization key of the operators' organization, with every scope a key may hold. */
async function organizationKey() {
  const res = await call(admin, 'POST', `/v1/organizations/${t.credentials.organizationId}/keys`, { name: 'Deploy bot' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().fullToken as string;
}

const protectedError = (userId: string) => ({
  error: expect.stringContaining(`User ${userId} is an operator`),
  code: 'directory.user_protected',
  requestId: expect.any(String),
});

describe('directory API', () => {
  it('refuses every write to an operator with directory:write alone or an organization key: 403 directory.user_protected', async () => {
    const operator = await userPrincipal(t);
    const group = (await call(admin, 'POST', `${directory}/groups`, { name: `Ops ${crypto.randomUUID().slice(0, 8)}` })).json().group;
    await call(admin, 'PUT', `${directory}/groups/${group.id}/members/${operator.user.id}`);
    for (const token of [await t.token('directory:write'), await organizationKey()]) {
      const writes: [Method, string, object?][] = [
        ['POST', `${directory}/users/${operator.user.id}/deactivate`],
        ['PATCH', `${directory}/users/${operator.user.id}`, { active: false }],
        ['PATCH', `${directory}/users/${operator.user.id}`, { displayName: 'Mallory' }],
        ['DELETE', `${directory}/users/${operator.user.id}`],
        ['DELETE', `${directory}/groups/${group.id}/members/${operator.user.id}`],
      ];
      for (const [method, url, body] of writes) {
        const res = await call(token, method, url, body);
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
        expect(res.json()).toEqual(protectedError(operator.user.id));
      }
    }
    expect(await userOf(operator.user.id)).toMatchObject({ active: true, displayName: `User ${operator.email}` });
    expect(await alive(operator.token)).toBe(200);
    // Reads stay open to directory:read.
    expect((await call(await t.token('directory:read'), 'GET', `${directory}/users/${operator.user.id}`)).statusCode).toBe(200);
  });

  it('refuses adding an operator to a group without the right to manage it', async () => {
    const operator = await userPrincipal(t);
    const group = (await call(admin, 'POST', `${directory}/groups`, { name: `Ops ${crypto.randomUUID().slice(0, 8)}` })).json().group;
    const res = await call(await t.token('directory:write'), 'PUT', `${directory}/groups/${group.id}/members/${operator.user.id}`);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toEqual(protectedError(operator.user.id));
  });

  it('lets a principal holding every scope of the operator manage it: a * service account, a * operator, directory:write over a directory:read operator', async () => {
    const operator = await userPrincipal(t);
    const manager = await userPrincipal(t, { organizationId: t.credentials.organizationId });
    const renamed = await call(manager.token, 'PATCH', `${directory}/users/${operator.user.id}`, { displayName: 'Renamed' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const deactivated = await call(admin, 'POST', `${directory}/users/${operator.user.id}/deactivate`);
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect(deactivated.json().user).toMatchObject({ id: operator.user.id, active: false });
    expect(await alive(operator.token)).toBe(401);
    const events = await tenantEvents(t, tenantId, { environmentId, type: 'directory.user.deactivated' });
    expect(events.map((e) => (e.data as { user: { id: string } }).user.id)).toContain(operator.user.id);

    const reader = await userPrincipal(t, { scopes: ['directory:read'] });
    const res = await call(await t.token('directory:write'), 'POST', `${directory}/users/${reader.user.id}/deactivate`);
    expect(res.statusCode, res.body).toBe(200);
    // An operator with fewer scopes than its target is refused.
    const lesser = await userPrincipal(t, { scopes: ['directory:write'], organizationId: t.credentials.organizationId });
    const target = await userPrincipal(t);
    const refused = await call(lesser.token, 'DELETE', `${directory}/users/${target.user.id}`);
    expect(refused.statusCode, refused.body).toBe(403);
  });

  it('leaves users without management scopes to directory:write', async () => {
    const created = await call(admin, 'POST', `${directory}/users`, { userName: `plain-${crypto.randomUUID().slice(0, 8)}` });
    const res = await call(await t.token('directory:write'), 'POST', `${directory}/users/${created.json().user.id}/deactivate`);
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('SCIM', () => {
  it("does not list or show the service's operators to a customer's SCIM client; writes to them are 404", async () => {
    const operator = await userPrincipal(t);
    const token = await provisioningToken('scim');
    const plain = await scim(t, token, 'POST', '/Users', { schemas: [USER], userName: `scim-${crypto.randomUUID().slice(0, 8)}` });
    expect(plain.status).toBe(201);

    const listed = await scim(t, token, 'GET', '/Users?count=1000');
    expect(listed.status).toBe(200);
    const ids = listed.body.Resources.map((r: { id: string }) => r.id);
    expect(ids).toContain(plain.body.id);
    expect(ids).not.toContain(operator.user.id);
    expect(ids).not.toContain(t.credentials.userId);
    expect(listed.body.totalResults).toBe(ids.length);
    const filtered = await scim(t, token, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${operator.email}"`)}`);
    expect(filtered.body).toMatchObject({ totalResults: 0, Resources: [] });

    const path = `/Users/${operator.user.id}`;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', patch({ op: 'replace', path: 'active', value: false })],
      ['PUT', { schemas: [USER], userName: 'mallory', active: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await scim(t, token, method, path, body);
      expect(res.status, `${method}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body).toMatchObject({ status: '404' });
    }
    const bulk = await scim(t, token, 'POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'PATCH', path, data: patch({ op: 'replace', path: 'userName', value: 'mallory' }) },
        { method: 'DELETE', path },
      ],
    });
    expect(bulk.body.Operations.map((o: { status: string }) => o.status)).toEqual(['404', '404']);
    expect(await userOf(operator.user.id)).toMatchObject({ active: true, userName: operator.email });
    expect(await alive(operator.token)).toBe(200);
  });

  it('hides operators among group members and keeps their memberships through a PUT; refuses to add one', async () => {
    const operator = await userPrincipal(t);
    const token = await provisioningToken('scim');
    const group = (await call(admin, 'POST', `${directory}/groups`, { name: `Admins ${crypto.randomUUID().slice(0, 8)}` })).json().group;
    await call(admin, 'PUT', `${directory}/groups/${group.id}/members/${operator.user.id}`);

    const seen = await scim(t, token, 'GET', `/Groups/${group.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.members ?? []).toEqual([]);
    const put = await scim(t, token, 'PUT', `/Groups/${group.id}`, { schemas: [GROUP], displayName: group.name, members: [] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const members = (await call(admin, 'GET', `${directory}/groups/${group.id}/members`)).json().users.map((u: { id: string }) => u.id);
    expect(members).toEqual([operator.user.id]);

    const added = await scim(t, token, 'PATCH', `/Groups/${group.id}`, patch({ op: 'add', path: 'members', value: [{ value: t.credentials.userId }] }));
    expect(added.status).toBe(400);
    const created = await scim(t, token, 'POST', '/Groups', {
      schemas: [GROUP],
      displayName: `G ${crypto.randomUUID()}`,
      members: [{ value: operator.user.id }],
    });
    expect(created.status).toBe(400);
  });
});

describe('HRIS', () => {
  it('does not list, show or change an employee who is an operator', async () => {
    const token = await provisioningToken('hris');
    const id = crypto.randomUUID().slice(0, 8);
    const created = await hris(t, token, 'POST', '/Employees', {
      schemas: [EMPLOYEE],
      externalId: `WD-${id}`,
      employeeNumber: id,
      displayName: 'Olga Operator',
      emails: [{ value: `olga-${id}@corp.example`, type: 'work', primary: true }],
      employmentStatus: 'ACTIVE',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const userId = created.body.id as string;
    // The employee is then made an operator (as an organization invitation of its email does).
    await t.pool.query(sql.unsafe`UPDATE users SET management_scopes = '{*}' WHERE id = ${userId}`);

    const listed = await hris(t, token, 'GET', '/Employees?count=1000');
    expect(listed.body.Resources.map((r: { id: string }) => r.id)).not.toContain(userId);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', patch({ op: 'replace', path: 'employmentStatus', value: 'TERMINATED' })],
      ['PUT', { ...created.body, employmentStatus: 'TERMINATED' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await hris(t, token, method, `/Employees/${userId}`, body);
      expect(res.status, `${method}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expect(await userOf(userId)).toMatchObject({ active: true, displayName: 'Olga Operator' });
    // Nor can an employee name one as its manager: to HRIS the operator is no user of the environment.
    const managed = await hris(t, token, 'POST', '/Employees', {
      schemas: [EMPLOYEE],
      employeeNumber: `${id}-2`,
      manager: t.credentials.userId,
      employmentStatus: 'ACTIVE',
    });
    expect(managed.status, JSON.stringify(managed.body)).toBe(400);
    expect(managed.body.detail).toContain('names no other user of this environment');
  });
});
