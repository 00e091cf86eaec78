// A model built only through the management APIs (directory, RBAC, API secrets) answers AuthZEN decisions, and
// every change to it is seen by the next decision: at once on the instance that made it, and through NOTIFY on
// another instance over the same database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import type { App } from '../../api/types.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';

let t: TestApp;
let second: App;
let token: string;
let base: string;
let secret: string;
const ids: Record<string, string> = {};

async function manage(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, payload?: object) {
  const res = await t.app.inject({ method, url: `${base}${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
  return res.json();
}

const request = (subject: string, action: string, resource: string, options?: object) => ({
  subject: { type: 'user', id: subject },
  action: { name: action },
  resource: { type: 'todo', id: resource },
  ...(options ? { options } : {}),
});

async function decide(app: App, body: object) {
  const res = await app.inject({ method: 'POST', url: '/access/v1/evaluation', headers: bearer(secret), payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { decision: boolean; context?: { reason: Record<string, unknown> } };
}
const permits = async (app: App, subject: string, action: string, resource: string) => (await decide(app, request(subject, action, resource))).decision;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  const { tenantId, environmentIds } = await newEnvironments(t);
  base = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}`;
  second = await buildApp({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey });

  ids.ada = (await manage('POST', '/directory/users', { userName: 'ada', emails: [{ value: 'ada@example.com' }], attributes: { level: 3 } })).user.id;
  ids.bob = (await manage('POST', '/directory/users', { userName: 'bob', externalId: 'idp-bob', emails: [{ value: 'bob@example.com' }] })).user.id;
  ids.editors = (await manage('POST', '/directory/groups', { name: 'editors' })).group.id;
  await manage('PUT', `/directory/groups/${ids.editors}/members/${ids.bob}`);
  await manage('POST', '/rbac/resource-types', { key: 'todo', actions: [{ name: 'read' }, { name: 'update' }, { name: 'delete' }] });
  await manage('POST', '/rbac/resources/todo/batch', {
    resources: [
      { id: 'todo-1', attributes: { owner: 'ada@example.com' } },
      { id: 'todo-2', attributes: { owner: 'bob@example.com' } },
    ],
  });
  await manage('POST', '/rbac/roles', { key: 'viewer', permissions: [{ permission: 'todo:read' }] });
  await manage('POST', '/rbac/roles', {
    key: 'editor',
    inherits: ['viewer'],
    permissions: [{ permission: 'todo:update', condition: 'resource.properties.owner == subject.properties.email' }],
  });
  await manage('POST', '/rbac/assignments', { role: 'editor', groupId: ids.editors });
  secret = (await manage('POST', '/api-secrets', { name: 'gateway', purposes: ['authzen'] })).secret;
});
afterAll(async () => {
  await second?.close();
  await t?.close();
});

describe('a model built through the management API', () => {
  it('permits through group roles, inheritance and an ownership condition, denies the rest, and explains itself', async () => {
    expect(await permits(t.app, 'idp-bob', 'read', 'todo-1')).toBe(true); // editor inherits viewer, through editors
    expect(await permits(t.app, 'bob', 'update', 'todo-2')).toBe(true); // bob owns todo-2
    expect(await decide(t.app, request('bob', 'update', 'todo-1', { explain: true }))).toEqual({
      decision: false,
      context: {
        reason: {
          permitted: false,
          code: 'condition_not_met',
          message: 'user "bob" holds todo:update only under conditions that did not hold.',
          failedConditions: [{ condition: 'resource.properties.owner == subject.properties.email', role: 'editor', assignmentId: expect.any(String) }],
        },
      },
    });
    expect(await decide(t.app, request('ada', 'read', 'todo-1', { explain: true }))).toEqual({
      decision: false,
      context: { reason: { permitted: false, code: 'no_permission', message: 'No role of user "ada" grants todo:read on this resource.' } },
    });
  });

  it('sees a change of the subject identifier kind in the next decision: at once here, and on another instance', async () => {
    expect(await permits(second, 'bob', 'read', 'todo-1')).toBe(true);
    await manage('PUT', '/authzen-settings', { subjectIdentifier: 'externalId' });
    expect(await permits(t.app, 'idp-bob', 'read', 'todo-1')).toBe(true);
    expect(await permits(t.app, 'bob', 'read', 'todo-1')).toBe(false);
    await expect.poll(() => permits(second, 'bob', 'read', 'todo-1'), { timeout: 5000, interval: 20 }).toBe(false);
    expect(await permits(second, 'idp-bob', 'read', 'todo-1')).toBe(true);
    await manage('PUT', '/authzen-settings', { subjectIdentifier: 'any' });
    expect(await permits(t.app, 'bob', 'read', 'todo-1')).toBe(true);
    await expect.poll(() => permits(second, 'bob', 'read', 'todo-1'), { timeout: 5000, interval: 20 }).toBe(true);
  });

  it('sees an assignment in the next decision: at once on the instance that made it, and on another instance', async () => {
    expect(await permits(second, 'ada', 'delete', 'todo-1')).toBe(false); // the second instance now holds the model
    expect(await permits(t.app, 'ada', 'delete', 'todo-1')).toBe(false);
    await manage('POST', '/rbac/roles', { key: 'admin', permissions: [{ permission: 'todo:delete', condition: 'subject.properties.level >= 3' }] });
    const { assignment } = await manage('POST', '/rbac/assignments', { role: 'admin', userId: ids.ada });
    expect(await permits(t.app, 'ada', 'delete', 'todo-1')).toBe(true);
    await expect.poll(() => permits(second, 'ada', 'delete', 'todo-1'), { timeout: 5000, interval: 20 }).toBe(true);

    // A stored attribute change is a model change too.
    await manage('PATCH', `/directory/users/${ids.ada}`, { attributes: { level: 2 } });
    expect(await permits(t.app, 'ada', 'delete', 'todo-2')).toBe(false);
    await expect.poll(() => permits(second, 'ada', 'delete', 'todo-2'), { timeout: 5000, interval: 20 }).toBe(false);

    await manage('DELETE', `/rbac/assignments/${assignment.id}`);
    await manage('PATCH', `/directory/users/${ids.ada}`, { attributes: { level: 3 } });
    expect(await permits(t.app, 'ada', 'delete', 'todo-1')).toBe(false);
  });

  it('takes every decision away from a user at once when it is deactivated or deleted', async () => {
    const cleo = (await manage('POST', '/directory/users', { userName: 'cleo' })).user.id;
    await manage('PUT', `/directory/groups/${ids.editors}/members/${cleo}`);
    expect(await permits(t.app, 'cleo', 'read', 'todo-2')).toBe(true);
    expect(await permits(second, 'cleo', 'read', 'todo-2')).toBe(true);
    await manage('POST', `/directory/users/${cleo}/deactivate`);
    expect(await decide(t.app, request('cleo', 'read', 'todo-2', { explain: true }))).toMatchObject({
      decision: false,
      context: { reason: { code: 'inactive_subject' } },
    });
    await expect.poll(() => permits(second, 'cleo', 'read', 'todo-2'), { timeout: 5000, interval: 20 }).toBe(false);

    await manage('POST', `/directory/users/${cleo}/activate`);
    expect(await permits(t.app, 'cleo', 'read', 'todo-2')).toBe(true);
    await manage('DELETE', `/directory/users/${cleo}`);
    expect(await decide(t.app, request('cleo', 'read', 'todo-2', { explain: true }))).toMatchObject({
      decision: false,
      context: { reason: { code: 'unknown_subject' } },
    });
    await expect.poll(() => permits(second, 'cleo', 'read', 'todo-2'), { timeout: 5000, interval: 20 }).toBe(false);
  });
});
