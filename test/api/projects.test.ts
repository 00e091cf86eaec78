import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  base = `/v1/tenants/${t.credentials.tenantId}/projects`;
});
afterAll(() => t.close());

const ts = expect.any(String);
const save = (payload: object, headers = bearer(token), url = base) => t.app.inject({ method: 'POST', url, headers, payload });
const environmentShape = (name: string, isLive: boolean, weight: number | null) => ({
  id: expect.any(String),
  name,
  description: null,
  createdAt: ts,
  updatedAt: ts,
  weight,
  isLive,
});
const eventsOf = async (subjectIds: string[]) =>
  (await tenantEvents(t, t.credentials.tenantId)).filter((e) => e.subject?.id && subjectIds.includes(e.subject.id));
const auditOf = async (resourceId: string) => (await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId })).map((a) => a.action);

describe('projects', () => {
  it('lists the projects of a tenant, the bootstrap console first, with the tenant and a total', async () => {
    const res = await t.app.inject({ method: 'GET', url: base, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    const { tenant, projects, total } = res.json();
    expect(tenant).toMatchObject({ id: t.credentials.tenantId, name: 'Default' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(projects[0]).toEqual({
      id: t.credentials.projectId,
      name: 'Console',
      type: 'web',
      link: null,
      description: 'Operators of this service',
      logoUri: null,
      createdAt: ts,
      updatedAt: ts,
      defaultEnvironmentId: t.credentials.environmentId,
    });
  });

  it('creates a project with development (default) and production environments, emitting an event for each', async () => {
    const res = await save({ name: 'Storefront', description: 'Shop', url: 'https://shop.example.com', type: 'mcp' });
    expect(res.statusCode).toBe(201);
    const { project, environments } = res.json();
    expect(environments).toEqual([environmentShape('development', false, 0), environmentShape('production', true, 1)]);
    expect(project).toEqual({
      id: expect.any(String),
      name: 'Storefront',
      type: 'mcp',
      link: 'https://shop.example.com',
      description: 'Shop',
      logoUri: null,
      createdAt: ts,
      updatedAt: ts,
      defaultEnvironmentId: environments[0].id,
      environments,
    });
    expect((await t.app.inject({ method: 'GET', url: `${base}/${project.id}`, headers: bearer(token) })).json()).toEqual({ project });
    const events = await eventsOf([project.id, ...environments.map((e: { id: string }) => e.id)]);
    expect(events.map((e) => [e.type, e.environmentId])).toEqual([
      ['project.created', null],
      ['environment.created', environments[0].id],
      ['environment.created', environments[1].id],
    ]);
    expect(events[0]!.data).toEqual({ project });
    expect(events[1]!.data.environment).toMatchObject({ id: environments[0].id, projectId: project.id, name: 'development', isDefault: true });
    expect(await auditOf(project.id)).toEqual(['project.create']);
    const listed = (await t.app.inject({ method: 'GET', url: `${base}?limit=1&offset=1`, headers: bearer(token) })).json();
    expect(listed.projects).toHaveLength(1);
    expect(listed.total).toBeGreaterThanOrEqual(2);
  });

  it('defaults the type to web and updates a project saved with its id (200), keeping what the body leaves out', async () => {
    const { project } = (await save({ name: 'Portal' })).json();
    expect(project).toMatchObject({ type: 'web', link: null, description: null });
    const res = await save({ id: project.id, name: 'Portal 2', url: 'http://localhost:3000' });
    expect(res.statusCode).toBe(200);
    expect(res.json().project).toEqual({ ...project, name: 'Portal 2', link: 'http://localhost:3000', updatedAt: ts });
    expect(res.json().environments).toEqual(project.environments);
    const [, updated] = await eventsOf([project.id]);
    expect(updated).toMatchObject({ type: 'project.updated', data: { previous: { name: 'Portal', link: null }, project: { name: 'Portal 2' } } });
    const cleared = await save({ id: project.id, name: 'Portal 2', url: null, description: null });
    expect(cleared.json().project).toMatchObject({ link: null, description: null, type: 'web' });
  });

  it.each([
    [{}, 'body.name', /expected string/],
    [{ name: '  ' }, 'body.name', /must not be empty/],
    [{ name: 'x', type: 'desktop' }, 'body.type', /web|m2m|mcp/],
    [{ name: 'x', url: 'ftp://example.com' }, 'body.url', /http\(s\) URL/],
    [{ name: 'x', url: 'shop.example.com' }, 'body.url', /http\(s\) URL/],
    [{ name: 'x', id: 'nope' }, 'body.id', /UUID/],
    [{ name: 'x', logoUri: 'https://x' }, 'body.logoUri', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await save(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'request.invalid', details: expect.arrayContaining([{ path, message: expect.stringMatching(message) }]) });
  });

  it('answers 404 for an id that is not a project of the tenant', async () => {
    const id = crypto.randomUUID();
    const res = await save({ id, name: 'x' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'project.not_found', error: `No project with id ${id}.` });
    for (const method of ['GET', 'DELETE'] as const)
      expect((await t.app.inject({ method, url: `${base}/${id}`, headers: bearer(token) })).statusCode).toBe(404);
  });

  it('sets the default environment, refusing an environment of another project', async () => {
    const { project, environments } = (await save({ name: 'Defaults' })).json();
    const url = `${base}/${project.id}/default-environment`;
    const res = await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { environmentId: environments[1].id } });
    expect(res.statusCode).toBe(200);
    expect(res.json().project).toMatchObject({ defaultEnvironmentId: environments[1].id, environments });
    const listed = (await t.app.inject({ method: 'GET', url: `${base}/${project.id}/environments`, headers: bearer(token) })).json();
    expect(listed.environments.map((e: { isDefault: boolean }) => e.isDefault)).toEqual([false, true]);
    const events = await eventsOf([project.id]);
    expect(events.at(-1)).toMatchObject({
      type: 'project.default_environment_set',
      data: { environmentId: environments[1].id, previousEnvironmentId: environments[0].id },
    });
    const again = await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { environmentId: environments[1].id } });
    expect(again.statusCode).toBe(200);
    expect(await eventsOf([project.id])).toHaveLength(events.length); // unchanged: nothing recorded

    const foreign = await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { environmentId: t.credentials.environmentId } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({
      code: 'project.unknown_environment',
      details: [{ path: 'body.environmentId', message: 'is not an environment of this project' }],
    });
  });

  it('deletes a project with its environments and everything in them, emitting environment.deleted for each and project.deleted', async () => {
    const { project, environments } = (await save({ name: 'Doomed' })).json();
    const envBase = `/v1/tenants/${t.credentials.tenantId}/environments/${environments[0].id}`;
    await t.app.inject({ method: 'POST', url: `${envBase}/connections`, headers: bearer(token), payload: { providerId: 'email_password', formPayload: '{}' } });
    const res = await t.app.inject({ method: 'DELETE', url: `${base}/${project.id}`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ project });
    expect((await t.app.inject({ method: 'GET', url: `${base}/${project.id}`, headers: bearer(token) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `${envBase}/connections`, headers: bearer(token) })).statusCode).toBe(404);
    const left = await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT ((SELECT count(*) FROM environments WHERE project_id = ${project.id}) + (SELECT count(*) FROM environment_connections WHERE environment_id = ${environments[0].id}))::int AS n`);
    expect(left).toBe(0);
    const events = (await eventsOf([project.id, ...environments.map((e: { id: string }) => e.id)])).filter((e) => e.type.endsWith('.deleted'));
    expect(events.map((e) => e.type)).toEqual(['environment.deleted', 'environment.deleted', 'project.deleted']);
    expect(events[2]!.data).toEqual({ project });
  });

  it("refuses to delete the project holding the service's operators", async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `${base}/${t.credentials.projectId}`, headers: bearer(token) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'project.protected' });
  });

  it('needs projects:write to change and projects:read to read', async () => {
    const reader = await t.token('projects:read');
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(reader) })).statusCode).toBe(200);
    const res = await save({ name: 'nope' }, bearer(reader));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'auth.insufficient_scope' });
    const other = await t.token('environments:write');
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(other) })).statusCode).toBe(403);
  });

  it('hides the projects of tenants in other organizations', async () => {
    const other = await otherOrganization(t);
    const { project } = (await save({ name: 'Mine' })).json();
    const theirs = `/v1/tenants/${t.credentials.tenantId}/projects`;
    expect((await t.app.inject({ method: 'GET', url: theirs, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `${theirs}/${project.id}`, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await save({ id: project.id, name: 'stolen' }, bearer(other.token))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `${theirs}/${project.id}`, headers: bearer(other.token) })).statusCode).toBe(404);
    const theirTenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'theirs' } })).json().tenant;
    const created = await save({ name: 'Theirs' }, bearer(other.token), `/v1/tenants/${theirTenant.id}/projects`);
    expect(created.statusCode).toBe(201);
    // Their project id in our tenant is not ours to update.
    expect((await save({ id: created.json().project.id, name: 'x' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/v1/tenants/${theirTenant.id}/projects`, headers: bearer(token) })).statusCode).toBe(404);
  });
});
