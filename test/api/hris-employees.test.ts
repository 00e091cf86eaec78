// HRIS Employees over /v1/hris/v1 as an HR connector drives them: adhris_ tokens only, create and read back the
// recommended record, filters for incremental sync, paging, projections, ETags, PatchOp shapes, errors. An employee
// is a directory user: the same id through /directory/users and SCIM /Users.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries } from '../helpers/events.ts';
import { DEPARTMENT, EMPLOYEE, ERROR, hris, LIST, patch, scim, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
let departmentId: string;
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t, 'hris');
  const res = await hris(t, env.token, 'POST', '/Departments', { schemas: [DEPARTMENT], displayName: 'Platform', code: 'PLAT' });
  departmentId = res.body.id;
});
afterAll(() => t.close());

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const unique = () => crypto.randomUUID().slice(0, 8);
const worker = (extra: Record<string, unknown> = {}) => {
  const id = unique();
  return {
    schemas: [EMPLOYEE],
    externalId: `WD-${id}`,
    employeeNumber: id,
    name: { givenName: 'Ana', familyName: 'Ruiz', formatted: 'Ana Ruiz' },
    preferredName: 'Ana',
    displayName: 'Ana Ruiz',
    emails: [
      { value: `home-${id}@home.example`, type: 'personal' },
      { value: `ana-${id}@corp.example`, type: 'work', primary: true },
    ],
    phoneNumbers: [{ value: '+1-555-0100', type: 'work' }],
    title: 'Staff Engineer',
    userType: 'Employee',
    employmentType: 'FULL_TIME',
    employmentStatus: 'ACTIVE',
    startDate: day(-100),
    costCenter: 'CC-4130',
    division: 'R&D',
    organization: 'Corp Inc',
    workLocation: { value: 'BER', display: 'Berlin' },
    customFields: { band: 'L5', remote: true },
    ...extra,
  };
};
const create = async (extra: Record<string, unknown> = {}) => {
  const res = await hris(t, env.token, 'POST', '/Employees', worker(extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const list = async (query: string) => (await hris(t, env.token, 'GET', `/Employees?${query}`)).body;
const filter = (text: string) => `filter=${encodeURIComponent(text)}`;

describe('authentication', () => {
  it('takes adhris_ tokens only: an adscim_ token, an environment secret, a management token or none is a 401 SCIM error', async () => {
    const scimToken = (await scimEnvironment(t, 'scim')).token;
    const secret = (
      await t.app.inject({ method: 'POST', url: `${env.base}/api-secrets`, headers: bearer(await t.token()), payload: { name: 's', purposes: ['authzen'] } })
    ).json().secret as string;
    for (const token of [scimToken, secret, await t.token(), 'adhris_nope']) {
      const res = await hris(t, token, 'GET', '/Employees');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '401' });
    }
    expect((await hris(t, env.token, 'GET', '/Employees')).status).toBe(200);
    expect((await scim(t, env.token, 'GET', '/Users')).status).toBe(401);
  });
});

describe('Employees', () => {
  it('creates the recommended record and reads it back, with its ETag, location and the audit actor the token', async () => {
    const manager = await create();
    const body = worker({ department: { value: departmentId }, manager: manager.id });
    const res = await hris(t, env.token, 'POST', '/Employees', body);
    expect(res.status).toBe(201);
    const e = res.body;
    expect(e).toEqual({
      schemas: [EMPLOYEE],
      id: expect.any(String),
      externalId: body.externalId,
      employeeNumber: body.employeeNumber,
      name: { givenName: 'Ana', familyName: 'Ruiz', formatted: 'Ana Ruiz' },
      preferredName: 'Ana',
      displayName: 'Ana Ruiz',
      emails: [
        { value: body.emails[1]!.value, type: 'work', primary: true },
        { value: body.emails[0]!.value, type: 'personal', primary: false },
      ],
      phoneNumbers: [{ value: '+1-555-0100', type: 'work', primary: true }],
      title: 'Staff Engineer',
      userType: 'Employee',
      employmentType: 'FULL_TIME',
      employmentStatus: 'ACTIVE',
      active: true,
      startDate: day(-100),
      department: { value: departmentId, display: 'Platform' },
      manager: { value: manager.id, displayName: 'Ana Ruiz' },
      costCenter: 'CC-4130',
      division: 'R&D',
      organization: 'Corp Inc',
      workLocation: { value: 'BER', display: 'Berlin' },
      userId: e.id,
      customFields: { band: 'L5', remote: true },
      meta: {
        resourceType: 'Employee',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `http://localhost:80/v1/hris/v1/Employees/${e.id}`,
        version: 'W/"1"',
      },
    });
    expect(res.headers.location).toBe(e.meta.location);
    expect(res.headers.etag).toBe('W/"1"');
    const got = await hris(t, env.token, 'GET', `/Employees/${e.id}`);
    expect(got.body).toEqual(e);
    expect(got.headers.etag).toBe('W/"1"');
    const [entry] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'hris.employee.create', resourceId: e.id });
    expect(entry!.actor).toEqual({ type: 'provisioning_token', id: env.tokenId });
  });

  it('is a directory user with the same id through /directory/users and SCIM /Users', async () => {
    const e = await create({ department: { value: departmentId } });
    const directory = await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${e.id}`, headers: bearer(await t.token()) });
    expect(directory.statusCode).toBe(200);
    expect(directory.json().user).toMatchObject({ id: e.id, externalId: e.externalId, userName: e.emails[0].value, active: true });
    expect(directory.json().user.attributes).toMatchObject({ employeeNumber: e.employeeNumber, department: 'Platform', departmentId });
    const scimToken = (
      await t.app.inject({ method: 'POST', url: `${env.base}/provisioning-tokens`, headers: bearer(await t.token()), payload: { name: 'idp', kind: 'scim' } })
    ).json().token as string;
    const user = await scim(t, scimToken, 'GET', `/Users/${e.id}`);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ id: e.id, userName: e.emails[0].value, active: true });
  });

  it('filters by externalId, employeeNumber, department.value, employmentStatus and meta.lastModified (incremental sync)', async () => {
    const before = new Date().toISOString();
    const a = await create({ department: { value: departmentId } });
    const b = await create({ employmentStatus: 'LEAVE' });
    const ids = (body: { Resources: { id: string }[] }) => body.Resources.map((r) => r.id);
    expect(ids(await list(filter(`externalId eq "${a.externalId}"`)))).toEqual([a.id]);
    expect(ids(await list(filter(`employeeNumber eq "${b.employeeNumber}"`)))).toEqual([b.id]);
    expect(ids(await list(filter(`department.value eq "${departmentId}" and externalId eq "${a.externalId}"`)))).toEqual([a.id]);
    expect(ids(await list(filter(`employmentStatus eq "LEAVE"`)))).toContain(b.id);
    expect(ids(await list(filter(`employmentStatus eq "LEAVE"`)))).not.toContain(a.id);
    expect(ids(await list(filter(`meta.lastModified gt "${before}"`)))).toEqual([a.id, b.id]);
    expect(await list(filter(`externalId eq "nobody"`))).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    const bad = await hris(t, env.token, 'GET', `/Employees?${filter('password eq "x"')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: 'invalidFilter' });
    const sorted = await hris(t, env.token, 'GET', '/Employees?sortBy=displayName');
    expect(sorted.status).toBe(400);
  });

  it('pages with startIndex/count and projects with attributes/excludedAttributes', async () => {
    const since = new Date().toISOString();
    const made = [await create(), await create(), await create()];
    const page = await list(`${filter(`meta.created gt "${since}"`)}&startIndex=2&count=1&attributes=employeeNumber`);
    expect(page).toEqual({
      schemas: [LIST],
      totalResults: 3,
      startIndex: 2,
      itemsPerPage: 1,
      Resources: [{ schemas: [EMPLOYEE], id: made[1].id, employeeNumber: made[1].employeeNumber }],
    });
    const slim = await hris(t, env.token, 'GET', `/Employees/${made[0].id}?excludedAttributes=customFields,emails`);
    expect(slim.body.customFields).toBeUndefined();
    expect(slim.body.emails).toBeUndefined();
    expect(slim.body.employeeNumber).toBe(made[0].employeeNumber);
  });

  it('PUT replaces (what it leaves out is cleared), with If-Match: a stale version is 412', async () => {
    const e = await create();
    const rest: Record<string, unknown> = worker({ externalId: e.externalId, employeeNumber: e.employeeNumber, emails: e.emails });
    delete rest.title;
    delete rest.costCenter;
    const put = await hris(t, env.token, 'PUT', `/Employees/${e.id}`, { ...rest, id: e.id, meta: e.meta }, { 'if-match': 'W/"1"' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.title).toBeUndefined();
    expect(put.body.costCenter).toBeUndefined();
    expect(put.body.meta.version).toBe('W/"2"');
    expect(put.headers.etag).toBe('W/"2"');
    const stale = await hris(t, env.token, 'PUT', `/Employees/${e.id}`, rest, { 'if-match': 'W/"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ schemas: [ERROR], status: '412' });
    expect((await hris(t, env.token, 'DELETE', `/Employees/${e.id}`, undefined, { 'if-match': 'W/"1"' })).status).toBe(412);
  });

  it('PATCH takes PatchOps with and without paths, in any case, manager as a bare id', async () => {
    const manager = await create();
    const e = await create();
    const res = await hris(
      t,
      env.token,
      'PATCH',
      `/Employees/${e.id}`,
      patch(
        { op: 'Replace', path: 'title', value: 'Principal Engineer' },
        { op: 'replace', value: { costCenter: 'CC-1', department: { value: departmentId } } },
        { op: 'add', path: 'manager', value: manager.id },
        { op: 'replace', path: 'emails[type eq "work"].value', value: `new-${e.employeeNumber}@corp.example` },
        { op: 'remove', path: 'workLocation' },
        { op: 'replace', path: 'customFields', value: { band: 'L6' } },
      ),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Principal Engineer',
      costCenter: 'CC-1',
      department: { value: departmentId, display: 'Platform' },
      manager: { value: manager.id, displayName: 'Ana Ruiz' },
      customFields: { band: 'L6' },
    });
    expect(res.body.emails[0]).toEqual({ value: `new-${e.employeeNumber}@corp.example`, type: 'work', primary: true });
    expect(res.body.workLocation).toBeUndefined();
    const cleared = await hris(t, env.token, 'PATCH', `/Employees/${e.id}`, patch({ op: 'remove', path: 'manager' }));
    expect(cleared.body.manager).toBeUndefined();
  });

  it('answers SCIM errors: unknown department or manager 400 invalidValue, duplicates 409 uniqueness, bad values 400, unknown ids 404', async () => {
    const e = await create();
    const cases: [Record<string, unknown>, number, string | undefined][] = [
      [worker({ department: { value: crypto.randomUUID() } }), 400, 'invalidValue'],
      [worker({ department: 'not-an-id' }), 400, 'invalidValue'],
      [worker({ manager: { value: crypto.randomUUID() } }), 400, 'invalidValue'],
      [worker({ employmentType: 'SOMETIMES' }), 400, 'invalidValue'],
      [worker({ startDate: '01/02/2024' }), 400, 'invalidValue'],
      [worker({ employeeNumber: e.employeeNumber }), 409, 'uniqueness'],
      [worker({ externalId: e.externalId }), 409, 'uniqueness'],
      [worker({ emails: e.emails }), 409, 'uniqueness'],
      [{ schemas: [EMPLOYEE] }, 400, 'invalidValue'],
    ];
    for (const [body, status, scimType] of cases) {
      const res = await hris(t, env.token, 'POST', '/Employees', body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status), scimType });
    }
    for (const id of [crypto.randomUUID(), 'nope']) {
      expect((await hris(t, env.token, 'GET', `/Employees/${id}`)).status).toBe(404);
      expect((await hris(t, env.token, 'PATCH', `/Employees/${id}`, patch({ op: 'replace', path: 'title', value: 'x' }))).status).toBe(404);
      expect((await hris(t, env.token, 'DELETE', `/Employees/${id}`)).status).toBe(404);
    }
  });

  it('DELETE removes the employee with its directory user', async () => {
    const e = await create();
    expect((await hris(t, env.token, 'DELETE', `/Employees/${e.id}`)).status).toBe(204);
    expect((await hris(t, env.token, 'GET', `/Employees/${e.id}`)).status).toBe(404);
    const directory = await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${e.id}`, headers: bearer(await t.token()) });
    expect(directory.statusCode).toBe(404);
  });

  it("never shows one environment's records to another environment's token", async () => {
    const e = await create();
    const other = await scimEnvironment(t, 'hris');
    expect((await hris(t, other.token, 'GET', `/Employees/${e.id}`)).status).toBe(404);
    expect((await hris(t, other.token, 'GET', `/Employees?${filter(`externalId eq "${e.externalId}"`)}`)).body.totalResults).toBe(0);
    expect((await hris(t, other.token, 'PUT', `/Employees/${e.id}`, worker())).status).toBe(404);
    expect((await hris(t, other.token, 'DELETE', `/Employees/${e.id}`)).status).toBe(404);
    expect((await hris(t, other.token, 'GET', `/Departments/${departmentId}`)).status).toBe(404);
    expect((await hris(t, other.token, 'POST', '/Employees', worker({ department: { value: departmentId } }))).status).toBe(400);
  });
});
