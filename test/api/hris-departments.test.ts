// HRIS Departments over /v1/hris/v1: the hierarchy (parent references, cycles refused), unique names, deletes
// refused while employees or children remain, filters, PATCH, ETags; discovery of both resource types; Bulk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { DEPARTMENT, EMPLOYEE, ERROR, hris, LIST, patch, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t, 'hris');
});
afterAll(() => t.close());

const unique = () => crypto.randomUUID().slice(0, 8);
const department = async (extra: Record<string, unknown> = {}) => {
  const res = await hris(t, env.token, 'POST', '/Departments', { schemas: [DEPARTMENT], displayName: `Dept ${unique()}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const employee = async (departmentId: string) => {
  const id = unique();
  const res = await hris(t, env.token, 'POST', '/Employees', {
    schemas: [EMPLOYEE],
    externalId: `WD-${id}`,
    emails: [{ value: `${id}@corp.example`, type: 'work' }],
    displayName: 'Bo Chen',
    department: { value: departmentId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

describe('Departments', () => {
  it('creates the recommended record with its parent and manager, as a directory group with the directory events', async () => {
    const engineering = await department({ displayName: `Engineering ${unique()}` });
    const boss = await employee(engineering.id);
    const res = await hris(t, env.token, 'POST', '/Departments', {
      schemas: [DEPARTMENT],
      externalId: 'HR-DEPT-42',
      code: 'PLAT',
      displayName: 'Platform',
      type: 'TEAM',
      parent: { value: engineering.id },
      manager: { value: boss.id },
      costCenter: 'CC-4100',
      active: 'True',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      schemas: [DEPARTMENT],
      id: expect.any(String),
      externalId: 'HR-DEPT-42',
      code: 'PLAT',
      displayName: 'Platform',
      type: 'TEAM',
      parent: { value: engineering.id, display: engineering.displayName },
      manager: { value: boss.id, displayName: 'Bo Chen' },
      costCenter: 'CC-4100',
      active: true,
      meta: {
        resourceType: 'Department',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `http://localhost:80/v1/hris/v1/Departments/${res.body.id}`,
        version: 'W/"1"',
      },
    });
    const group = await t.app.inject({ method: 'GET', url: `${env.base}/directory/groups/${res.body.id}`, headers: bearer(await t.token()) });
    expect(group.json().group).toMatchObject({ id: res.body.id, name: 'Platform' });
    const events = await tenantEvents(t, env.tenantId, { type: 'hris.department.created' });
    expect(events.map((e) => (e.data.department as { groupId: string }).groupId)).toContain(res.body.id);
    // Members of the department's group: its employees.
    const filtered = await hris(t, env.token, 'GET', `/Departments?filter=${encodeURIComponent('displayName eq "platform"')}`);
    expect(filtered.body).toMatchObject({ schemas: [LIST], totalResults: 1, Resources: [{ id: res.body.id }] });
    const children = await hris(t, env.token, 'GET', `/Departments?filter=${encodeURIComponent(`parent.value eq "${engineering.id}"`)}`);
    expect(children.body.Resources.map((d: { id: string }) => d.id)).toEqual([res.body.id]);
  });

  it('refuses a cycle, an unknown parent or manager (400 invalidValue) and a duplicate name (409 uniqueness)', async () => {
    const a = await department();
    const b = await department({ parent: a.id });
    const c = await department({ parent: { value: b.id } });
    const cycle = await hris(t, env.token, 'PATCH', `/Departments/${a.id}`, patch({ op: 'replace', path: 'parent', value: { value: c.id } }));
    expect(cycle.status).toBe(400);
    expect(cycle.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidValue' });
    const self = await hris(t, env.token, 'PATCH', `/Departments/${a.id}`, patch({ op: 'replace', path: 'parent.value', value: a.id }));
    expect(self.status).toBe(400);
    for (const body of [{ parent: { value: crypto.randomUUID() } }, { manager: { value: crypto.randomUUID() } }, { type: 'SQUAD' }, { displayName: '' }]) {
      const res = await hris(t, env.token, 'POST', '/Departments', { schemas: [DEPARTMENT], displayName: `D ${unique()}`, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.scimType).toBe('invalidValue');
    }
    const duplicate = await hris(t, env.token, 'POST', '/Departments', { schemas: [DEPARTMENT], displayName: a.displayName.toUpperCase() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
  });

  it('refuses to delete a department with employees or children (409), deletes an empty one; If-Match guards writes', async () => {
    const parent = await department();
    const child = await department({ parent: { value: parent.id } });
    const staffed = await department();
    const e = await employee(staffed.id);
    for (const id of [parent.id, staffed.id]) {
      const res = await hris(t, env.token, 'DELETE', `/Departments/${id}`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '409' });
      expect(res.body.scimType).toBeUndefined();
    }
    const renamed = await hris(t, env.token, 'PUT', `/Departments/${child.id}`, { displayName: `${child.displayName} 2` }, { 'if-match': child.meta.version });
    expect(renamed.status).toBe(200);
    expect(renamed.body.parent).toBeUndefined();
    expect(renamed.headers.etag).toBe('W/"2"');
    expect((await hris(t, env.token, 'DELETE', `/Departments/${child.id}`, undefined, { 'if-match': 'W/"1"' })).status).toBe(412);
    expect((await hris(t, env.token, 'DELETE', `/Departments/${child.id}`, undefined, { 'if-match': 'W/"2"' })).status).toBe(204);
    expect((await hris(t, env.token, 'DELETE', `/Departments/${parent.id}`)).status).toBe(204);
    expect((await hris(t, env.token, 'DELETE', `/Employees/${e.id}`)).status).toBe(204);
    expect((await hris(t, env.token, 'DELETE', `/Departments/${staffed.id}`)).status).toBe(204);
    expect((await hris(t, env.token, 'GET', `/Departments/${staffed.id}`)).status).toBe(404);
  });
});

describe('discovery and Bulk', () => {
  it('advertises Employee and Department, their schemas, and what the mount supports', async () => {
    const config = await hris(t, env.token, 'GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: true },
      filter: { supported: true, maxResults: 200 },
      sort: { supported: false },
      etag: { supported: true },
    });
    const types = await hris(t, env.token, 'GET', '/ResourceTypes');
    expect(types.body.Resources.map((r: { name: string; endpoint: string; schema: string }) => [r.name, r.endpoint, r.schema])).toEqual([
      ['Employee', '/Employees', EMPLOYEE],
      ['Department', '/Departments', DEPARTMENT],
    ]);
    expect((await hris(t, env.token, 'GET', '/ResourceTypes/Employee')).body.schema).toBe(EMPLOYEE);
    const schemas = await hris(t, env.token, 'GET', '/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([EMPLOYEE, DEPARTMENT]);
    const employee = (await hris(t, env.token, 'GET', `/Schemas/${EMPLOYEE}`)).body;
    expect(employee.attributes.find((a: { name: string }) => a.name === 'active')).toMatchObject({ type: 'boolean', mutability: 'readOnly' });
    expect((await hris(t, env.token, 'GET', '/ResourceTypes/User')).status).toBe(404);
    expect((await hris(t, env.token, 'GET', '/Users')).status).toBe(404);
  });

  it('performs Bulk operations with bulkId references; a failing one answers its own SCIM error', async () => {
    const res = await hris(t, env.token, 'POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'POST', path: '/Departments', bulkId: 'd', data: { displayName: `Bulk ${unique()}` } },
        {
          method: 'POST',
          path: '/Employees',
          bulkId: 'e',
          data: { externalId: `WD-${unique()}`, employeeNumber: unique(), department: { value: 'bulkId:d' } },
        },
        { method: 'POST', path: '/Employees', data: { employeeNumber: unique(), department: { value: crypto.randomUUID() } } },
        { method: 'DELETE', path: '/Departments/bulkId:d' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.Operations.map((o: { status: string }) => o.status)).toEqual(['201', '201', '400', '409']);
    expect(res.body.Operations[2].response).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' });
  });
});
