import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';

let t: TestApp;
let token: string;
let e: RbacEnvironment;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
beforeEach(async () => {
  e = await rbacEnvironment(t, token);
});
afterAll(() => t.close());

const todo = { key: 'todo', name: 'To-do', description: 'A to-do item', actions: [{ name: 'update' }, { name: 'can_read_todos', description: 'Read' }] };

describe('RBAC resource types', () => {
  it('creates a resource type with its actions, reads, lists, updates and deletes it, with events and audit entries', async () => {
    const created = await e.call('POST', '/resource-types', todo);
    expect(created.status).toBe(201);
    const resourceType = created.body.resourceType;
    expect(resourceType).toEqual({
      id: expect.any(String),
      key: 'todo',
      name: 'To-do',
      description: 'A to-do item',
      storedInstancesOnly: true,
      actions: [
        { name: 'can_read_todos', description: 'Read' },
        { name: 'update', description: null },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await e.call('GET', '/resource-types/todo')).body).toEqual({ resourceType });
    expect((await e.call('GET', '/resource-types')).body).toEqual({ resourceTypes: [resourceType], total: 1, nextCursor: null, hasMore: false });

    const patched = await e.call('PATCH', '/resource-types/todo', {
      name: null,
      storedInstancesOnly: false,
      actions: [{ name: 'update', description: 'Change' }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.resourceType).toMatchObject({ name: null, storedInstancesOnly: false, actions: [{ name: 'update', description: 'Change' }] });

    const deleted = await e.call('DELETE', '/resource-types/todo');
    expect(deleted.body).toEqual({ resourceType: patched.body.resourceType });
    expect((await e.call('GET', '/resource-types/todo')).body).toMatchObject({ code: 'resource_type.not_found' });

    const events = (await tenantEvents(t, t.credentials.tenantId, { environmentId: e.environmentId })).filter((ev) => ev.subject?.id === resourceType.id);
    expect(events.map((ev) => [ev.type, ev.data])).toEqual([
      ['rbac.resource_type.created', { resourceType }],
      ['rbac.resource_type.updated', { resourceType: patched.body.resourceType }],
      ['rbac.resource_type.deleted', { resourceType: patched.body.resourceType }],
    ]);
    const audit = await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId: resourceType.id });
    expect(audit.map((a) => [a.action, a.environmentId])).toEqual([
      ['rbac.resource_type.create', e.environmentId],
      ['rbac.resource_type.update', e.environmentId],
      ['rbac.resource_type.delete', e.environmentId],
    ]);
    expect(audit[1]!.changes).toMatchObject({ before: { name: 'To-do', storedInstancesOnly: true }, after: { name: null, storedInstancesOnly: false } });
  });

  it('adds (201) and updates (200) one action, removes it, and 404s an unknown one', async () => {
    await e.call('POST', '/resource-types', { key: 'doc', actions: [] });
    const added = await e.call('PUT', '/resource-types/doc/actions/read', { description: 'Read it' });
    expect(added.status).toBe(201);
    expect(added.body.resourceType.actions).toEqual([{ name: 'read', description: 'Read it' }]);
    const updated = await e.call('PUT', '/resource-types/doc/actions/read', {});
    expect(updated.status).toBe(200);
    expect(updated.body.resourceType.actions).toEqual([{ name: 'read', description: null }]);
    const removed = await e.call('DELETE', '/resource-types/doc/actions/read');
    expect(removed.status).toBe(200);
    expect(removed.body.resourceType.actions).toEqual([]);
    const unknown = await e.call('DELETE', '/resource-types/doc/actions/read');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'action.not_found' } });
    expect(await e.call('PUT', '/resource-types/nope/actions/read', {})).toMatchObject({ status: 404, body: { code: 'resource_type.not_found' } });
  });

  it('drops the role permissions on an action that is removed, or on a type that is deleted', async () => {
    await e.call('POST', '/resource-types', { key: 'todo', actions: [{ name: 'read' }, { name: 'update' }, { name: 'delete' }] });
    await e.call('POST', '/resource-types', { key: 'doc', actions: [{ name: 'read' }] });
    await e.call('POST', '/roles', {
      key: 'editor',
      permissions: [{ permission: 'todo:read' }, { permission: 'todo:update' }, { permission: 'todo:delete' }, { permission: 'doc:read' }],
    });
    await e.call('DELETE', '/resource-types/todo/actions/delete');
    await e.call('PATCH', '/resource-types/todo', { actions: [{ name: 'read' }] });
    expect((await e.call('GET', '/roles/editor')).body.role.permissions.map((p: { permission: string }) => p.permission)).toEqual(['doc:read', 'todo:read']);
    await e.call('PUT', '/resources/doc/d1', { attributes: {} });
    await e.call('DELETE', '/resource-types/doc');
    expect((await e.call('GET', '/roles/editor')).body.role.permissions.map((p: { permission: string }) => p.permission)).toEqual(['todo:read']);
    await e.call('POST', '/resource-types', { key: 'doc' });
    expect((await e.call('GET', '/resources/doc/d1')).status).toBe(404);
  });

  it('lists permissions and resource types page by page to the last page', async () => {
    await e.call('POST', '/resource-types', { key: 'b', actions: [{ name: 'x', description: 'X' }, { name: 'y' }] });
    await e.call('POST', '/resource-types', { key: 'a', actions: [{ name: 'z' }] });
    await e.call('POST', '/resource-types', { key: 'c' });
    const first = await e.call('GET', '/permissions', undefined, { limit: '2' });
    expect(first.body).toEqual({
      permissions: [
        { permission: 'a:z', resourceType: 'a', action: 'z', description: null },
        { permission: 'b:x', resourceType: 'b', action: 'x', description: 'X' },
      ],
      total: 3,
      nextCursor: expect.any(String),
      hasMore: true,
    });
    const last = await e.call('GET', '/permissions', undefined, { limit: '2', cursor: first.body.nextCursor });
    expect(last.body).toEqual({
      permissions: [{ permission: 'b:y', resourceType: 'b', action: 'y', description: null }],
      total: 3,
      nextCursor: null,
      hasMore: false,
    });

    const types = await e.call('GET', '/resource-types', undefined, { limit: '2' });
    expect(types.body).toMatchObject({ total: 3, hasMore: true, resourceTypes: [{ key: 'a' }, { key: 'b' }] });
    const rest = await e.call('GET', '/resource-types', undefined, { limit: '2', cursor: types.body.nextCursor });
    expect(rest.body).toMatchObject({ total: 3, hasMore: false, nextCursor: null, resourceTypes: [{ key: 'c', actions: [] }] });
  });

  it('answers 409 for a taken key, also to concurrent creates', async () => {
    expect((await e.call('POST', '/resource-types', { key: 'todo' })).status).toBe(201);
    expect(await e.call('POST', '/resource-types', { key: 'todo' })).toMatchObject({ status: 409, body: { code: 'resource_type.already_exists' } });
    const statuses = await Promise.all([1, 2, 3].map(() => e.call('POST', '/resource-types', { key: 'same' })));
    expect(statuses.map((s) => s.status).sort()).toEqual([201, 409, 409]);
    expect(statuses.find((s) => s.status === 409)!.body.code).toBe('resource_type.already_exists');
  });

  it.each([
    [{ key: 'a:b' }, 'body.key'],
    [{ key: '' }, 'body.key'],
    [{ key: 'x'.repeat(101) }, 'body.key'],
    [{ key: 'ok', actions: [{ name: 'a:b' }] }, 'body.actions.0.name'],
    [{ key: 'ok', actions: [{ name: 'read' }, { name: 'read' }] }, 'body.actions.1.name'],
    [{ key: 'ok', color: 'red' }, 'body.color'],
  ])('refuses %o naming %s', async (payload, path) => {
    const res = await e.call('POST', '/resource-types', payload);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('hides the resource types of another organization', async () => {
    await e.call('POST', '/resource-types', { key: 'todo' });
    const other = await otherOrganization(t);
    const res = await t.app.inject({ method: 'GET', url: `${e.base}/resource-types/todo`, headers: bearer(other.token) });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('tenant.not_found');
  });

  it('needs rbac:read to read and rbac:write to change', async () => {
    const reader = await t.token('rbac:read');
    expect((await t.app.inject({ method: 'GET', url: `${e.base}/resource-types`, headers: bearer(reader) })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: `${e.base}/resource-types`, headers: bearer(reader), payload: { key: 'x' } });
    expect(res.statusCode).toBe(403);
  });
});
