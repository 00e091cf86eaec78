import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';

let t: TestApp;
let token: string;
let e: RbacEnvironment;
let userId: string;
let groupId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
beforeEach(async () => {
  e = await rbacEnvironment(t, token);
  await e.call('POST', '/resource-types', { key: 'todo', actions: [{ name: 'read' }] });
  await e.call('POST', '/roles', { key: 'viewer', permissions: [{ permission: 'todo:read' }] });
  await e.call('POST', '/roles', { key: 'admin' });
  userId = await e.newUser();
  groupId = await e.newGroup();
});
afterAll(() => t.close());

const assign = (payload: object) => e.call('POST', '/assignments', payload);

describe('RBAC assignments', () => {
  it('assigns a role to a user, reads, updates and deletes the grant, with events and audit entries', async () => {
    const created = await assign({ role: 'viewer', userId, resources: [{ type: 'todo', id: 't1' }], condition: 'context.ip != ""' });
    expect(created.status).toBe(201);
    const assignment = created.body.assignment;
    expect(assignment).toEqual({
      id: expect.any(String),
      role: 'viewer',
      userId,
      groupId: null,
      resources: [{ type: 'todo', id: 't1' }],
      condition: 'context.ip != ""',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await e.call('GET', `/assignments/${assignment.id}`)).body).toEqual({ assignment });

    const cleared = await e.call('PATCH', `/assignments/${assignment.id}`, { resources: null, condition: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.assignment).toMatchObject({ resources: null, condition: null, role: 'viewer', userId });
    const limited = await e.call('PATCH', `/assignments/${assignment.id}`, { resources: [{ type: 'todo', id: 't2' }] });
    expect(limited.body.assignment).toMatchObject({ resources: [{ type: 'todo', id: 't2' }], condition: null });

    expect((await e.call('DELETE', `/assignments/${assignment.id}`)).body).toEqual({ assignment: limited.body.assignment });
    expect(await e.call('GET', `/assignments/${assignment.id}`)).toMatchObject({ status: 404, body: { code: 'assignment.not_found' } });
    expect(await e.call('DELETE', `/assignments/${assignment.id}`)).toMatchObject({ status: 404, body: { code: 'assignment.not_found' } });

    const events = (await tenantEvents(t, t.credentials.tenantId, { environmentId: e.environmentId })).filter((ev) => ev.subject?.id === assignment.id);
    expect(events.map((ev) => [ev.type, ev.data])).toEqual([
      ['rbac.role.assigned', { assignment }],
      ['rbac.assignment.updated', { assignment: cleared.body.assignment }],
      ['rbac.assignment.updated', { assignment: limited.body.assignment }],
      ['rbac.role.unassigned', { assignment: limited.body.assignment }],
    ]);
    const audit = await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId: assignment.id });
    expect(audit.map((a) => a.action)).toEqual(['rbac.assignment.create', 'rbac.assignment.update', 'rbac.assignment.update', 'rbac.assignment.delete']);
  });

  it('assigns to a group, and lists with filters page by page to the last page', async () => {
    const a = (await assign({ role: 'viewer', userId })).body.assignment;
    const b = (await assign({ role: 'admin', groupId })).body.assignment;
    const c = (await assign({ role: 'viewer', groupId })).body.assignment;
    expect(b).toMatchObject({ userId: null, groupId, resources: null, condition: null });
    const first = await e.call('GET', '/assignments', undefined, { limit: '2' });
    expect(first.body).toEqual({ assignments: [a, b], total: 3, nextCursor: expect.any(String), hasMore: true });
    const last = await e.call('GET', '/assignments', undefined, { limit: '2', cursor: first.body.nextCursor });
    expect(last.body).toEqual({ assignments: [c], total: 3, nextCursor: null, hasMore: false });
    expect((await e.call('GET', '/assignments', undefined, { role: 'viewer' })).body).toMatchObject({ assignments: [a, c], total: 2 });
    expect((await e.call('GET', '/assignments', undefined, { groupId })).body).toMatchObject({ assignments: [b, c], total: 2 });
    expect((await e.call('GET', '/assignments', undefined, { userId, role: 'admin' })).body).toMatchObject({ assignments: [], total: 0, hasMore: false });
  });

  it('deletes the assignments of a deleted role', async () => {
    const a = (await assign({ role: 'admin', userId })).body.assignment;
    await e.call('DELETE', '/roles/admin');
    expect((await e.call('GET', `/assignments/${a.id}`)).status).toBe(404);
  });

  it.each([
    [() => ({ role: 'viewer' }), 'body.userId', 'exactly one of userId and groupId must be given'],
    [() => ({ role: 'viewer', userId, groupId }), 'body.groupId', 'exactly one of userId and groupId must be given'],
    [() => ({ role: 'ghost', userId }), 'body.role', 'ghost is not a role of this environment'],
    [() => ({ role: 'viewer', userId: groupId }), 'body.userId', expect.stringMatching(/^[0-9a-f-]{36} is not a user of this environment$/)],
    [() => ({ role: 'viewer', groupId: userId }), 'body.groupId', expect.stringMatching(/^[0-9a-f-]{36} is not a group of this environment$/)],
    [
      () => ({
        role: 'viewer',
        userId,
        resources: [
          { type: 'todo', id: 'a' },
          { type: 'doc', id: 'b' },
        ],
      }),
      'body.resources.1.type',
      'doc is not a resource type of this environment',
    ],
    [() => ({ role: 'viewer', userId, resources: [] }), 'body.resources', expect.any(String)],
    [
      () => ({
        role: 'viewer',
        userId,
        resources: [
          { type: 'todo', id: 'a' },
          { type: 'todo', id: 'a' },
        ],
      }),
      'body.resources.1',
      'repeats todo:a',
    ],
    [() => ({ role: 'viewer', userId, condition: 'subject.id ==' }), 'body.condition', '1:14: Unexpected token: EOF'],
    [() => ({ role: 'viewer', userId: 'nope' }), 'body.userId', expect.any(String)],
  ])('refuses a grant naming %s', async (payload, path, message) => {
    const res = await assign(payload());
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path, message });
  });

  it('refuses a user or a group of another environment', async () => {
    const other = await rbacEnvironment(t, token);
    const stranger = await other.newUser();
    expect((await assign({ role: 'viewer', userId: stranger })).body.details).toEqual([
      { path: 'body.userId', message: `${stranger} is not a user of this environment` },
    ]);
    const a = (await assign({ role: 'viewer', userId })).body.assignment;
    expect(await other.call('GET', `/assignments/${a.id}`)).toMatchObject({ status: 404, body: { code: 'assignment.not_found' } });
  });

  it('refuses an invalid condition in an update with code rbac.invalid_condition', async () => {
    const a = (await assign({ role: 'viewer', userId })).body.assignment;
    const res = await e.call('PATCH', `/assignments/${a.id}`, { condition: 'nope' });
    expect(res).toMatchObject({
      status: 400,
      body: { code: 'rbac.invalid_condition', details: [{ path: 'body.condition', message: '1:1: Unknown variable: nope' }] },
    });
  });

  it('hides the assignments of another organization', async () => {
    const a = (await assign({ role: 'viewer', userId })).body.assignment;
    const other = await otherOrganization(t);
    const res = await t.app.inject({ method: 'GET', url: `${e.base}/assignments/${a.id}`, headers: bearer(other.token) });
    expect(res.statusCode).toBe(404);
  });
});
