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
  await e.call('POST', '/resource-types', { key: 'todo', actions: [{ name: 'read' }] });
});
afterAll(() => t.close());

const path = (id: string) => `/resources/todo/${encodeURIComponent(id)}`;

describe('RBAC resources', () => {
  it('stores (201), replaces (200), reads and deletes a resource with a client-chosen id, with events and audit entries', async () => {
    const id = 'list/42 ü?#%';
    const created = await e.call('PUT', path(id), { attributes: { owner: 'alice', tags: ['a'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      resource: { type: 'todo', id, attributes: { owner: 'alice', tags: ['a'] }, createdAt: expect.any(String), updatedAt: expect.any(String) },
    });
    const replaced = await e.call('PUT', path(id), { attributes: { owner: 'bob' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.resource).toMatchObject({ id, attributes: { owner: 'bob' }, createdAt: created.body.resource.createdAt });
    expect((await e.call('GET', path(id))).body).toEqual(replaced.body);
    expect((await e.call('DELETE', path(id))).body).toEqual(replaced.body);
    expect(await e.call('GET', path(id))).toMatchObject({ status: 404, body: { code: 'resource.not_found' } });
    expect(await e.call('DELETE', path(id))).toMatchObject({ status: 404, body: { code: 'resource.not_found' } });

    const events = (await tenantEvents(t, t.credentials.tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type.startsWith('rbac.resource.'));
    expect(events.map((ev) => [ev.type, ev.data])).toEqual([
      ['rbac.resource.created', created.body],
      ['rbac.resource.updated', replaced.body],
      ['rbac.resource.deleted', replaced.body],
    ]);
    const audit = await auditEntries(t, { tenantId: t.credentials.tenantId }, { resourceId: `todo:${id}` });
    expect(audit.map((a) => a.action)).toEqual(['rbac.resource.create', 'rbac.resource.update', 'rbac.resource.delete']);
    expect(audit[1]!.changes).toMatchObject({ before: { attributes: { owner: 'alice', tags: ['a'] } }, after: { attributes: { owner: 'bob' } } });
  });

  it('takes an id of 200 characters whatever they are', async () => {
    const id = '€'.repeat(200);
    expect((await e.call('PUT', path(id), { attributes: {} })).status).toBe(201);
    expect((await e.call('GET', path(id))).body.resource.id).toBe(id);
  });

  it('404s a resource of an unknown type', async () => {
    expect(await e.call('PUT', '/resources/nope/1', { attributes: {} })).toMatchObject({ status: 404, body: { code: 'resource_type.not_found' } });
    expect(await e.call('GET', '/resources/nope')).toMatchObject({ status: 404, body: { code: 'resource_type.not_found' } });
  });

  it.each([
    [path('x'), { attributes: [] }, 'body.attributes'],
    [path('x'), { attributes: { big: 'x'.repeat(16 * 1024) } }, 'body.attributes'],
    [path('x'), { attributes: {}, extra: 1 }, 'body.extra'],
    [path('a\u0007b'), { attributes: {} }, 'params.resourceId'],
    [path('x'.repeat(201)), { attributes: {} }, 'params.resourceId'],
    [path('€'.repeat(201)), { attributes: {} }, 'params.resourceId'],
  ])('refuses PUT %s %o naming %s', async (url, payload, field) => {
    const res = await e.call('PUT', url, payload);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('upserts a batch in one transaction, recorded as one audit entry and one event', async () => {
    await e.call('PUT', path('r1'), { attributes: { v: 0 } });
    const resources = [
      { id: 'r1', attributes: { v: 1 } },
      { id: 'r2', attributes: { v: 2 } },
      { id: 'r3', attributes: {} },
    ];
    const res = await e.call('POST', '/resources/todo/batch', { resources });
    expect(res).toEqual({ status: 200, body: { upserted: 3 } });
    expect((await e.call('GET', path('r1'))).body.resource.attributes).toEqual({ v: 1 });
    const events = (await tenantEvents(t, t.credentials.tenantId, { environmentId: e.environmentId, type: 'rbac.resources.upserted' })).map((ev) => ev.data);
    expect(events).toEqual([{ type: 'todo', count: 3, ids: ['r1', 'r2', 'r3'] }]);
    const audit = (await auditEntries(t, { tenantId: t.credentials.tenantId }, { action: 'rbac.resources.upsert' })).filter(
      (a) => a.environmentId === e.environmentId,
    );
    expect(audit).toHaveLength(1);

    const repeated = await e.call('POST', '/resources/todo/batch', {
      resources: [
        { id: 'r9', attributes: {} },
        { id: 'r9', attributes: {} },
      ],
    });
    expect(repeated).toMatchObject({ status: 400, body: { details: [{ path: 'body.resources.1.id' }] } });
    expect((await e.call('GET', path('r9'))).status).toBe(404);
    expect((await e.call('POST', '/resources/todo/batch', { resources: [] })).status).toBe(400);
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ id: `b${i}`, attributes: {} }));
    expect((await e.call('POST', '/resources/todo/batch', { resources: tooMany })).status).toBe(400);
  });

  it('lists resources by id with a cursor to the last page, optionally by id prefix', async () => {
    const ids = ['a/1', 'a/2', 'a/3', 'b/1', 'ü'];
    await e.call('POST', '/resources/todo/batch', { resources: ids.map((id) => ({ id, attributes: { id } })) });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await e.call('GET', '/resources/todo', undefined, { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(Object.keys(page.body).sort()).toEqual(['hasMore', 'nextCursor', 'resources']);
      seen.push(...page.body.resources.map((r: { id: string }) => r.id));
      pages++;
      if (!page.body.hasMore) {
        expect(page.body.nextCursor).toBeNull();
        break;
      }
      cursor = page.body.nextCursor;
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...ids].sort());
    const prefixed = await e.call('GET', '/resources/todo', undefined, { idPrefix: 'a/' });
    expect(prefixed.body.resources.map((r: { id: string }) => r.id)).toEqual(['a/1', 'a/2', 'a/3']);
    expect(await e.call('GET', '/resources/todo', undefined, { cursor: 'bogus' })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'querystring.cursor' }] },
    });
  });

  it('stores a resource or 404s, never fails, while its type is deleted concurrently', async () => {
    const [deleted, ...stored] = await Promise.all([
      e.call('DELETE', '/resource-types/todo'),
      ...[1, 2, 3].map((i) => e.call('PUT', path(`c${i}`), { attributes: {} })),
      e.call('POST', '/resources/todo/batch', { resources: [{ id: 'b1', attributes: {} }] }),
    ]);
    expect(deleted.status).toBe(200);
    for (const res of stored) expect([200, 201, 404]).toContain(res.status);
  });

  it('hides the resources of another organization', async () => {
    await e.call('PUT', path('r1'), { attributes: {} });
    const other = await otherOrganization(t);
    const res = await t.app.inject({ method: 'GET', url: `${e.base}${path('r1')}`, headers: bearer(other.token) });
    expect(res.statusCode).toBe(404);
  });
});
