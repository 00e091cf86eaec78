// HRIS errors are SCIM errors; hostile values in any attribute of an Employee or a Department, created or patched
// onto a real one, are a 4xx or a success, never a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { DEPARTMENT_SCHEMA, EMPLOYEE_SCHEMA } from '../../lib/scim/hris-schemas.ts';
import { ERROR, hris, patch, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t, 'hris');
});
afterAll(() => t.close());

const hostile = [null, true, -1, 1e308, '', 'a\u0000b', 'line\nbreak', 'x'.repeat(100_000), [], [null], {}, { $gt: '' }, '2024-02-30', '../../etc'];
const employee = () => ({ emails: [{ value: `h${crypto.randomUUID()}@corp.example`, type: 'work' }] });
const department = () => ({ displayName: `D ${crypto.randomUUID()}` });

describe('HRIS errors', () => {
  it('answers an unknown route, a malformed body and a missing token with SCIM errors', async () => {
    expect((await hris(t, env.token, 'GET', '/Nope')).body).toMatchObject({ schemas: [ERROR], status: '404' });
    expect((await hris(t, env.token, 'POST', '/Employees', '{"employeeNumber":')).body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await hris(t, '', 'GET', '/Departments')).body).toMatchObject({ schemas: [ERROR], status: '401' });
  });

  it.each([
    ['Employees', EMPLOYEE_SCHEMA.attributes.map((a) => a.name), employee],
    ['Departments', DEPARTMENT_SCHEMA.attributes.map((a) => a.name), department],
  ] as const)(
    'answers hostile values in every attribute of %s with a 4xx or a success, never a 5xx',
    async (endpoint, names, valid) => {
      const target = (await hris(t, env.token, 'POST', `/${endpoint}`, valid())).body.id as string;
      const failures: string[] = [];
      for (const attribute of [...names, 'externalId', 'id', 'meta']) {
        for (const value of hostile) {
          const created = await hris(t, env.token, 'POST', `/${endpoint}`, { ...valid(), [attribute]: value });
          if (created.status >= 500) failures.push(`POST ${attribute}=${JSON.stringify(value).slice(0, 20)} → ${created.status}`);
          const patched = await hris(t, env.token, 'PATCH', `/${endpoint}/${target}`, patch({ op: 'replace', path: attribute, value }));
          if (patched.status >= 500) failures.push(`PATCH ${attribute}=${JSON.stringify(value).slice(0, 20)} → ${patched.status}`);
        }
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
