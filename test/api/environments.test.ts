import { storeIdOf } from '../../lib/fga/store-id.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let project: { id: string; name: string; environments: { id: string }[] };
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
// A project of its own for every test: what one test adds to it never shows in another's lists.
beforeEach(async () => {
  project = (
    await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/projects`,
      headers: bearer(token),
      payload: { name: 'Billing', type: 'm2m' },
    })
  ).json().project;
  base = `/v1/tenants/${t.credentials.tenantId}/projects/${project.id}/environments`;
});
afterAll(() => t.close());

const ts = expect.any(String);
const create = (payload: object, url = base, headers = bearer(token)) => t.app.inject({ method: 'POST', url, headers, payload });
const eventsOf = async (id: string) => (await tenantEvents(t, t.credentials.tenantId)).filter((e) => e.subject?.id === id);

describe('environments', () => {
  it('lists the environments of a project in weight order, marking the default', async () => {
    const res = await t.app.inject({ method: 'GET', url: base, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      project: { id: project.id, name: 'Billing', type: 'm2m' },
      environments: [
        {
          id: project.environments[0]!.id,
          name: 'development',
          description: null,
          createdAt: ts,
          updatedAt: ts,
          weight: 0,
          isLive: false,
          isDefault: true,
          fgaStoreId: storeIdOf(project.environments[0]!.id),
        },
        {
          id: project.environments[1]!.id,
          name: 'production',
          description: null,
          createdAt: ts,
          updatedAt: ts,
          weight: 1,
          isLive: true,
          isDefault: false,
          fgaStoreId: storeIdOf(project.environments[1]!.id),
        },
      ],
    });
  });

  it('creates, updates and deletes an environment, auditing and emitting each change', async () => {
    const created = await create({ name: 'staging', description: 'QA', weight: 5 });
    expect(created.statusCode).toBe(201);
    const environment = created.json().environment;
    expect(created.json()).toEqual({
      tenant: { id: t.credentials.tenantId, name: 'Default' },
      project: { id: project.id, name: 'Billing' },
      environment: {
        id: expect.any(String),
        name: 'staging',
        description: 'QA',
        createdAt: ts,
        updatedAt: ts,
        weight: 5,
        isLive: false,
        isDefault: false,
        fgaStoreId: expect.any(String),
      },
    });
    expect(environment.fgaStoreId).toBe(storeIdOf(environment.id));
    const listed = (await t.app.inject({ method: 'GET', url: base, headers: bearer(token) })).json().environments;
    expect(listed.map((e: { name: string }) => e.name)).toEqual(['development', 'production', 'staging']);

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${base}/${environment.id}`,
      headers: bearer(token),
      payload: { name: 'preview', isLive: true },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().environment).toEqual({ ...environment, name: 'preview', isLive: true, updatedAt: ts });

    const deleted = await t.app.inject({ method: 'DELETE', url: `${base}/${environment.id}`, headers: bearer(token) });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().environment).toEqual(patched.json().environment);
    expect((await t.app.inject({ method: 'PATCH', url: `${base}/${environment.id}`, headers: bearer(token), payload: { name: 'x' } })).statusCode).toBe(404);

    const events = await eventsOf(environment.id);
    expect(events.map((e) => [e.type, e.environmentId])).toEqual([
      ['environment.created', environment.id],
      ['environment.updated', environment.id],
      ['environment.deleted', environment.id],
    ]);
    expect(events[0]!.data.environment).toEqual({ ...environment, projectId: project.id });
    expect(events[1]!.data.previous).toEqual({ name: 'staging', isLive: false });
    const audit = await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId: environment.id });
    expect(audit.map((a) => a.action)).toEqual(['environment.create', 'environment.update', 'environment.delete']);
  });

  it('keeps environment names unique in a project, ignoring case', async () => {
    const res = await create({ name: 'Production' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'environment.name_taken' });
    const qa = (await create({ name: 'qa' })).json().environment;
    const rename = await t.app.inject({ method: 'PATCH', url: `${base}/${qa.id}`, headers: bearer(token), payload: { name: 'DEVELOPMENT' } });
    expect(rename.statusCode).toBe(409);
    expect((await t.app.inject({ method: 'PATCH', url: `${base}/${qa.id}`, headers: bearer(token), payload: { name: 'QA', weight: null } })).statusCode).toBe(
      200,
    );
  });

  it.each([
    ['POST', {}, 'body.name', /expected string/],
    ['POST', { name: 'x', weight: 1.5 }, 'body.weight', /integer/],
    ['POST', { name: 'x', isLive: 'yes' }, 'body.isLive', /boolean/],
    ['POST', { name: 'x', isDefault: true }, 'body.isDefault', /not a known field/],
    ['PATCH', { description: 'no name' }, 'body.name', /expected string/],
  ] as const)('%s refuses %o naming %s', async (method, payload, path, message) => {
    const url = method === 'POST' ? base : `${base}/${project.environments[1]!.id}`;
    const res = await t.app.inject({ method, url, headers: bearer(token), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it("refuses to delete the default environment, and the one holding the service's operators", async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `${base}/${project.environments[0]!.id}`, headers: bearer(token) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'environment.is_default' });

    const consoleBase = `/v1/tenants/${t.credentials.tenantId}/projects/${t.credentials.projectId}`;
    const spare = (await create({ name: 'spare' }, `${consoleBase}/environments`)).json().environment;
    await t.app.inject({ method: 'PUT', url: `${consoleBase}/default-environment`, headers: bearer(token), payload: { environmentId: spare.id } });
    const operators = await t.app.inject({ method: 'DELETE', url: `${consoleBase}/environments/${t.credentials.environmentId}`, headers: bearer(token) });
    expect(operators.statusCode).toBe(409);
    expect(operators.json()).toMatchObject({ code: 'environment.protected' });
  });

  it('finds an environment only under its own project and tenant', async () => {
    const elsewhere = `/v1/tenants/${t.credentials.tenantId}/projects/${t.credentials.projectId}/environments/${project.environments[1]!.id}`;
    expect((await t.app.inject({ method: 'PATCH', url: elsewhere, headers: bearer(token), payload: { name: 'x' } })).json()).toMatchObject({
      code: 'environment.not_found',
    });
    const noProject = `/v1/tenants/${t.credentials.tenantId}/projects/${crypto.randomUUID()}/environments`;
    expect((await t.app.inject({ method: 'GET', url: noProject, headers: bearer(token) })).json()).toMatchObject({ code: 'project.not_found' });
  });

  it('needs environments scopes, and hides environments of tenants in other organizations', async () => {
    const reader = await t.token('environments:read');
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(reader) })).statusCode).toBe(200);
    expect((await create({ name: 'x' }, base, bearer(reader))).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(await t.token('projects:write')) })).statusCode).toBe(403);

    const other = await otherOrganization(t);
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await create({ name: 'intruder' }, base, bearer(other.token))).statusCode).toBe(404);
    const env = `${base}/${project.environments[1]!.id}`;
    expect((await t.app.inject({ method: 'PATCH', url: env, headers: bearer(other.token), payload: { name: 'x' } })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: env, headers: bearer(other.token) })).statusCode).toBe(404);
  });
});
