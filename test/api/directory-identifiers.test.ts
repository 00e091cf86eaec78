// An AuthZEN subject id names one directory subject whatever its kind (`any`, the default): no user's externalId
// may equal another user's userName (ignoring case) or id, and no group's externalId another group's name or id, in
// one environment. Postgres refuses such a write (0026, under a per-environment lock so two concurrent writes cannot
// both pass); the directory API answers 409 `directory.identifier_taken` naming the value, SCIM and HRIS 409
// `uniqueness`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { EMPLOYEE, ERROR, GROUP, hris, patch, scim, scimEnvironment, USER } from '../helpers/scim.ts';

let t: TestApp;
let token: string;
let users: string;
let groups: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
beforeEach(async () => {
  const { tenantId, environmentIds } = await newEnvironments(t, token);
  users = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/directory/users`;
  groups = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/directory/groups`;
});
afterAll(() => t?.close());

const call = (method: 'POST' | 'PATCH', url: string, payload: object) => t.app.inject({ method, url, headers: bearer(token), payload });
const created = async (url: string, payload: object) => {
  const res = await call('POST', url, payload);
  expect(res.statusCode, res.body).toBe(201);
  return (res.json().user ?? res.json().group) as { id: string };
};
const conflict = (path: string, message: string) => ({
  error: `Conflict: ${path} ${message}.`,
  code: 'directory.identifier_taken',
  requestId: expect.any(String),
  details: [{ path, message }],
});

describe('identifiers unique across kinds', () => {
  it('refuses a user whose externalId is another user’s userName (any case) or id, or whose userName is another’s externalId or id', async () => {
    const alice = await created(users, { userName: 'alice', externalId: 'idp-alice' });
    const taken = 'is already the userName or id of another user in this environment';
    const cases: [object, string, string][] = [
      [{ userName: 'mallory', externalId: 'ALICE' }, 'body.externalId', `ALICE ${taken}`],
      [{ userName: 'mallory', externalId: alice.id }, 'body.externalId', `${alice.id} ${taken}`],
      [{ userName: 'IDP-Alice' }, 'body.userName', 'IDP-Alice is already the externalId or id of another user in this environment'],
      [{ userName: alice.id.toUpperCase() }, 'body.userName', `${alice.id.toUpperCase()} is already the externalId or id of another user in this environment`],
    ];
    for (const [payload, path, message] of cases) {
      const res = await call('POST', users, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(409);
      expect(res.json()).toEqual(conflict(path, message));
    }
    // A patch is checked the same way; a user's own userName as its externalId is no conflict.
    const bob = await created(users, { userName: 'bob' });
    expect((await call('PATCH', `${users}/${bob.id}`, { externalId: 'Alice' })).json()).toEqual(conflict('body.externalId', `Alice ${taken}`));
    expect((await call('PATCH', `${users}/${bob.id}`, { externalId: 'BOB' })).statusCode).toBe(200);
    // bob's externalId is now BOB: alice cannot take bob as userName (which is also bob's userName).
    expect((await call('PATCH', `${users}/${alice.id}`, { userName: 'bob' })).json()).toEqual(
      conflict('body.userName', 'bob is already the externalId or id of another user in this environment'),
    );
  });

  it('refuses a group whose externalId is another group’s name or id, or whose name is another’s externalId or id', async () => {
    const admins = await created(groups, { name: 'Admins', externalId: 'grp-1' });
    const res = await call('POST', groups, { name: 'readers', externalId: 'admins' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict('body.externalId', 'admins is already the name or id of another group in this environment'));
    expect((await call('POST', groups, { name: 'GRP-1' })).json()).toEqual(
      conflict('body.name', 'GRP-1 is already the externalId or id of another group in this environment'),
    );
    expect((await call('POST', groups, { name: admins.id })).json().code).toBe('directory.identifier_taken');
    const readers = await created(groups, { name: 'readers' });
    expect((await call('PATCH', `${groups}/${readers.id}`, { externalId: admins.id })).json().code).toBe('directory.identifier_taken');
  });

  it('gives one 201 and one 409 to a user with externalId X and another with userName X created at once', async () => {
    for (let round = 0; round < 5; round++) {
      const value = `x-${round}`;
      const results = await Promise.all([call('POST', users, { userName: `holder-${round}`, externalId: value }), call('POST', users, { userName: value })]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json().code).toBe('directory.identifier_taken');
    }
    const grouped = await Promise.all([call('POST', groups, { name: 'g', externalId: 'shared' }), call('POST', groups, { name: 'SHARED' })]);
    expect(grouped.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it('answers SCIM 409 uniqueness for a user or group (POST and PATCH)', async () => {
    const env = await scimEnvironment(t);
    const alice = await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: 'alice@example.com', externalId: '00u-alice' });
    expect(alice.status).toBe(201);
    const uniqueness = (detail: string) => ({ schemas: [ERROR], status: '409', scimType: 'uniqueness', detail });
    const mallory = await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: 'mallory@example.com', externalId: 'Alice@Example.com' });
    expect(mallory.body).toEqual(uniqueness('Conflict: body.externalId Alice@Example.com is already the userName or id of another user in this environment.'));
    const bob = await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: 'bob@example.com' });
    const renamed = await scim(t, env.token, 'PATCH', `/Users/${bob.body.id}`, patch({ op: 'replace', path: 'userName', value: '00u-alice' }));
    expect(renamed.body).toEqual(uniqueness('Conflict: body.userName 00u-alice is already the externalId or id of another user in this environment.'));
    expect((await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Admins', externalId: 'g-1' })).status).toBe(201);
    const group = await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'G-1' });
    expect(group.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
  });

  it('answers HRIS 409 uniqueness for an employee whose externalId is another user’s userName', async () => {
    const env = await scimEnvironment(t, 'hris');
    const directory = `${env.base}/directory/users`;
    expect((await call('POST', directory, { userName: 'alice@corp.example' })).statusCode).toBe(201);
    const employee = await hris(t, env.token, 'POST', '/Employees', {
      schemas: [EMPLOYEE],
      externalId: 'alice@corp.example',
      employeeNumber: 'E-1',
      emails: [{ value: 'mallory@corp.example', type: 'work', primary: true }],
    });
    expect(employee.body).toEqual({
      schemas: [ERROR],
      status: '409',
      scimType: 'uniqueness',
      detail: expect.stringContaining('alice@corp.example is already the userName or id of another user in this environment'),
    });
    expect(employee.status).toBe(409);
  });
});
