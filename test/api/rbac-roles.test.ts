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
  await e.call('POST', '/resource-types', { key: 'todo', actions: [{ name: 'read' }, { name: 'update' }, { name: 'can_read_todos' }] });
});
afterAll(() => t.close());

const role = (key: string, extra: object = {}) => e.call('POST', '/roles', { key, ...extra });
const ownerOnly = 'resource.properties.owner == subject.id';

describe('RBAC roles', () => {
  it('creates a role with permissions, conditions and inheritance, reads, lists, updates and deletes it, with events and audit entries', async () => {
    await role('viewer', { permissions: [{ permission: 'todo:read' }] });
    const created = await role('editor', {
      name: 'Editor',
      description: 'Edits their own',
      permissions: [{ permission: 'todo:update', condition: ownerOnly }, { permission: 'todo:can_read_todos' }],
      inherits: ['viewer'],
    });
    expect(created.status).toBe(201);
    const editor = created.body.role;
    expect(editor).toEqual({
      id: expect.any(String),
      key: 'editor',
      name: 'Editor',
      description: 'Edits their own',
      permissions: [
        { permission: 'todo:can_read_todos', resourceType: 'todo', action: 'can_read_todos', condition: null },
        { permission: 'todo:update', resourceType: 'todo', action: 'update', condition: ownerOnly },
      ],
      inherits: ['viewer'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await e.call('GET', '/roles/editor')).body).toEqual({ role: editor });
    const list = await e.call('GET', '/roles', undefined, { limit: '1' });
    expect(list.body).toEqual({ roles: [editor], total: 2, nextCursor: expect.any(String), hasMore: true });
    const last = await e.call('GET', '/roles', undefined, { limit: '1', cursor: list.body.nextCursor });
    expect(last.body).toMatchObject({ roles: [{ key: 'viewer' }], total: 2, nextCursor: null, hasMore: false });

    const patched = await e.call('PATCH', '/roles/editor', { description: null, permissions: [{ permission: 'todo:read', condition: 'true' }], inherits: [] });
    expect(patched.status).toBe(200);
    expect(patched.body.role).toMatchObject({
      name: 'Editor',
      description: null,
      permissions: [{ permission: 'todo:read', resourceType: 'todo', action: 'read', condition: 'true' }],
      inherits: [],
    });
    const kept = await e.call('PATCH', '/roles/editor', { name: 'Writer' });
    expect(kept.body.role).toMatchObject({ name: 'Writer', permissions: patched.body.role.permissions, inherits: [] });

    expect((await e.call('DELETE', '/roles/editor')).body).toEqual({ role: kept.body.role });
    expect(await e.call('GET', '/roles/editor')).toMatchObject({ status: 404, body: { code: 'role.not_found' } });
    expect(await e.call('PATCH', '/roles/editor', {})).toMatchObject({ status: 404, body: { code: 'role.not_found' } });

    const events = (await tenantEvents(t, t.credentials.tenantId, { environmentId: e.environmentId })).filter((ev) => ev.subject?.id === editor.id);
    expect(events.map((ev) => [ev.type, ev.data])).toEqual([
      ['rbac.role.created', { role: editor }],
      ['rbac.role.updated', { role: patched.body.role }],
      ['rbac.role.updated', { role: kept.body.role }],
      ['rbac.role.deleted', { role: kept.body.role }],
    ]);
    const audit = await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId: editor.id });
    expect(audit.map((a) => a.action)).toEqual(['rbac.role.create', 'rbac.role.update', 'rbac.role.update', 'rbac.role.delete']);
    expect(audit[2]!.changes).toEqual({ before: { name: 'Editor', updatedAt: expect.any(String) }, after: { name: 'Writer', updatedAt: expect.any(String) } });
  });

  it('refuses an inheritance cycle: self, direct and transitive, naming it', async () => {
    const self = await role('a', { inherits: ['a'] });
    expect(self).toMatchObject({ status: 400, body: { code: 'rbac.role_cycle', details: [{ path: 'body.inherits', message: 'would form a cycle: a → a' }] } });
    await role('a');
    await role('b', { inherits: ['a'] });
    const direct = await e.call('PATCH', '/roles/a', { inherits: ['b'] });
    expect(direct).toMatchObject({ status: 400, body: { code: 'rbac.role_cycle' } });
    expect(direct.body.error).toContain('a → b → a');
    await role('c', { inherits: ['b'] });
    const transitive = await e.call('PATCH', '/roles/a', { inherits: ['c'] });
    expect(transitive.body).toMatchObject({ code: 'rbac.role_cycle', details: [{ path: 'body.inherits', message: 'would form a cycle: a → c → b → a' }] });
    expect(await e.call('PATCH', '/roles/a', { inherits: ['a'] })).toMatchObject({ status: 400, body: { code: 'rbac.role_cycle' } });
    expect((await e.call('GET', '/roles/a')).body.role.inherits).toEqual([]);
    // A diamond is no cycle.
    expect((await role('d', { inherits: ['b', 'c'] })).status).toBe(201);
  });

  it('lets only one of two concurrent edits close a cycle', async () => {
    await role('x');
    await role('y');
    const [one, two] = await Promise.all([e.call('PATCH', '/roles/x', { inherits: ['y'] }), e.call('PATCH', '/roles/y', { inherits: ['x'] })]);
    expect([one.status, two.status].sort()).toEqual([200, 400]);
    expect([one, two].find((r) => r.status === 400)!.body.code).toBe('rbac.role_cycle');
  });

  it.each([
    ['subject.id ==', '1:14: Unexpected token: EOF'],
    ['user.id == "a"', '1:1: Unknown variable: user'],
    ['subject.id == "a" &&\n  nope(1)', "2:3: found no matching overload for 'nope(int)'"],
    ['1 + 1', '1:1: A condition must evaluate to a bool, not int.'],
    // matches() is RE2: a pattern it refuses, or one that is not a literal (compiled at save), is refused at its position.
    ["context.s.matches('(a)\\\\1')", '1:19: The pattern "(a)\\\\1" is not a valid RE2 regular expression (invalid escape sequence: `\\1`).'],
    ["context.s.matches('(?=a)')", '1:19: The pattern "(?=a)" is not a valid RE2 regular expression (invalid or unsupported Perl syntax: `(?=`).'],
    ['context.s.matches(context.p)', '1:27: The pattern of matches() must be a string literal.'],
    ["1.matches('a')", "1:1: found no matching overload for 'int.matches(string)'"],
    // The cost checked at save: nested comprehensions and the estimate over lists of 50 items.
    ['context.l.all(x, context.l.all(y, context.l.all(z, x == y)))', '1:1: Comprehensions (all, exists, map, filter…) may nest at most 2 deep.'],
    [
      'context.l.all(x, context.l.all(y, x + y + x + y + x + y + x + y + x + y + x + y + x + y > 0))',
      expect.stringMatching(/^1:1: The condition's estimated cost \(\d+ units, with lists of 50 items\) exceeds its limit of 50000\.$/),
    ],
  ])('refuses the condition %j with its position', async (condition, message) => {
    const res = await role('r', { permissions: [{ permission: 'todo:read' }, { permission: 'todo:update', condition }] });
    expect(res).toMatchObject({ status: 400, body: { code: 'rbac.invalid_condition', details: [{ path: 'body.permissions.1.condition', message }] } });
    expect((await e.call('GET', '/roles/r')).status).toBe(404);
  });

  it.each([
    [{ permissions: [{ permission: 'todo:delete' }] }, 'body.permissions.0.permission', 'todo:delete is not a permission of this environment'],
    [
      { permissions: [{ permission: 'todo:read' }, { permission: 'doc:read' }] },
      'body.permissions.1.permission',
      'doc:read is not a permission of this environment',
    ],
    [{ permissions: [{ permission: 'todo' }] }, 'body.permissions.0.permission', 'must be <type>:<action>'],
    [{ permissions: [{ permission: 'todo:read' }, { permission: 'todo:read' }] }, 'body.permissions.1', 'repeats todo:read'],
    [{ inherits: ['ghost'] }, 'body.inherits.0', 'ghost is not a role of this environment'],
    [{ inherits: ['x', 'x'] }, 'body.inherits.1', 'repeats x'],
    [{ owner: 'me' }, 'body.owner', expect.any(String)],
  ])('refuses %o naming %s', async (extra, path, message) => {
    await role('x');
    const res = await role('r', extra);
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path, message });
  });

  it('answers 409 for a taken key, also to concurrent creates', async () => {
    await role('dup');
    expect(await role('dup')).toMatchObject({ status: 409, body: { code: 'role.already_exists' } });
    const results = await Promise.all([1, 2, 3].map(() => role('same', { permissions: [{ permission: 'todo:read' }] })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('deletes a role with the inheritance to it', async () => {
    await role('base');
    await role('top', { inherits: ['base'] });
    await e.call('DELETE', '/roles/base');
    expect((await e.call('GET', '/roles/top')).body.role.inherits).toEqual([]);
  });

  it('hides the roles of another organization', async () => {
    await role('x');
    const other = await otherOrganization(t);
    const res = await t.app.inject({ method: 'GET', url: `${e.base}/roles/x`, headers: bearer(other.token) });
    expect(res.statusCode).toBe(404);
  });
});
