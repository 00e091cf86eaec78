// AuthZEN decisions backed by FGA: a resource type only the environment's FGA model defines is decided by it
// (subject → user, resource → object, action → relation, context → condition context), the RBAC types stay RBAC's,
// the AuthZEN settings move a type explicitly, searches answer with list-users / list-objects / checks, and the
// explanation and the decision log name the path that granted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, bearer, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { createApiSecret } from '../helpers/access-model.ts';

let t: TestApp;
let token: string;
let pdp: Pdp;
let store: (method: string, path: string, payload?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

const MODEL = `model
  schema 1.1
type user
type team
  relations
    define member: [user]
type folder
  relations
    define parent: [folder]
    define viewer: [user, team#member] or viewer from parent
type doc
  relations
    define parent: [folder]
    define owner: [user]
    define editor: [user with during_shift] or owner
    define viewer: [user, user:*] or editor or viewer from parent
type document
  relations
    define reader: [user]
condition during_shift(now: timestamp, shift_end: timestamp) {
  now < shift_end
}`;

const decide = async (subject: string, action: string, resource: string, context?: Record<string, unknown>) => {
  const [subjectType, subjectId] = subject.split(':') as [string, string];
  const [resourceType, resourceId] = resource.split(':') as [string, string];
  const res = await pdp.post('evaluation', {
    subject: { type: subjectType, id: subjectId },
    action: { name: action },
    resource: { type: resourceType, id: resourceId },
    ...(context ? { context } : {}),
    options: { explain: true },
  });
  expect(res.status).toBe(200);
  return res.body as { decision: boolean; context: { reason: Record<string, unknown> } };
};

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  pdp = await authzenEnvironment(t);
  const { secret } = await createApiSecret(t.pool, pdp.environmentId, ['fga']);
  const stores = await t.app.inject({ method: 'GET', url: '/v1/fga/stores', headers: bearer(secret) });
  const storeId = (stores.json() as { stores: { id: string }[] }).stores[0]!.id;
  store = async (method, path, payload) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url: `/v1/fga/stores/${storeId}${path}`,
      headers: { ...bearer(secret), 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json' },
      ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };
  expect((await store('POST', '/authorization-models', MODEL)).status).toBe(201);
  const tuple = (user: string, relation: string, object: string, condition?: unknown) => ({ user, relation, object, ...(condition ? { condition } : {}) });
  const written = await store('POST', '/write', {
    writes: {
      tuple_keys: [
        tuple('team:eng', 'viewer', 'folder:root'),
        tuple('folder:root', 'parent', 'folder:specs'),
        tuple('folder:specs', 'parent', 'doc:design'),
        tuple('user:anne', 'member', 'team:eng'),
        tuple('user:bob', 'owner', 'doc:design'),
        tuple('user:carl', 'editor', 'doc:design', { name: 'during_shift', context: { shift_end: '2030-01-01T00:00:00Z' } }),
        tuple('user:*', 'viewer', 'doc:public'),
        tuple('user:dana', 'reader', 'document:doc-1'),
      ].map((k) => (k.user === 'team:eng' ? { ...k, user: 'team:eng#member' } : k)),
    },
  });
  expect(written.status).toBe(200);
});
afterAll(() => t?.close());

describe('AuthZEN backed by FGA', () => {
  it('decides a type only the FGA model defines by FGA, and explains the path that granted', async () => {
    const anne = await decide('user:anne', 'viewer', 'doc:design');
    expect(anne).toEqual({
      decision: true,
      context: {
        reason: {
          permitted: true,
          code: 'fga.granted',
          path: ['doc:design#viewer', 'folder:specs#viewer', 'folder:root#viewer', 'team:eng#member', 'user:anne'],
          message: 'Granted by doc:design#viewer ← folder:specs#viewer ← folder:root#viewer ← team:eng#member ← user:anne.',
        },
      },
    });
    expect((await decide('user:bob', 'editor', 'doc:design')).decision).toBe(true); // owner implies editor
    expect((await decide('user:zoe', 'viewer', 'doc:public')).decision).toBe(true); // user:*
    const zoe = await decide('user:zoe', 'viewer', 'doc:design');
    expect(zoe).toEqual({ decision: false, context: { reason: expect.objectContaining({ permitted: false, code: 'fga.not_related' }) } });
    // A relation the type does not define is an unknown action, as in RBAC.
    expect((await decide('user:anne', 'delete', 'doc:design')).context.reason).toMatchObject({ permitted: false, code: 'unknown_action' });
  });

  it('passes the request context to conditions; a parameter neither gives denies with the reason', async () => {
    expect((await decide('user:carl', 'editor', 'doc:design', { now: '2029-06-01T00:00:00Z' })).decision).toBe(true);
    expect((await decide('user:carl', 'editor', 'doc:design', { now: '2031-06-01T00:00:00Z' })).decision).toBe(false);
    const missing = await decide('user:carl', 'editor', 'doc:design');
    expect(missing.decision).toBe(false);
    expect(missing.context.reason).toMatchObject({ code: 'fga.invalid_request', message: expect.stringContaining('now') });
  });

  it('keeps the types RBAC defines with RBAC until the settings move them to FGA', async () => {
    // `document` is an RBAC type (alice reads everything, dana is unknown to the directory) and also an FGA type.
    expect((await decide('user:alice', 'read', 'document:doc-1')).decision).toBe(true);
    expect((await decide('user:dana', 'reader', 'document:doc-1')).decision).toBe(false);
    const url = `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/authzen-settings`;
    const settle = (resourceTypeEngines: Record<string, string>) =>
      t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { resourceTypeEngines } });
    try {
      const saved = await settle({ document: 'fga' });
      expect(saved.json()).toEqual({ settings: { environmentId: pdp.environmentId, subjectIdentifier: 'any', resourceTypeEngines: { document: 'fga' } } });
      expect((await decide('user:dana', 'reader', 'document:doc-1')).decision).toBe(true);
      expect((await decide('user:alice', 'read', 'document:doc-1')).decision).toBe(false);
      // And `doc`, FGA's by default, can be given to RBAC, which has no such type.
      await settle({ doc: 'rbac' });
      expect((await decide('user:alice', 'read', 'document:doc-1')).decision).toBe(true);
      expect((await decide('user:alice', 'viewer', 'doc:design')).context.reason).toMatchObject({ code: 'unknown_resource_type' });
      const refused = await settle({ doc: 'opa' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ details: [{ path: 'body.resourceTypeEngines.doc' }] });
    } finally {
      await settle({});
    }
    expect((await decide('user:anne', 'viewer', 'doc:design')).decision).toBe(true);
  });

  it('answers a batch mixing RBAC and FGA types in request order', async () => {
    const res = await pdp.post('evaluations', {
      subject: { type: 'user', id: 'anne' },
      evaluations: [
        { action: { name: 'viewer' }, resource: { type: 'doc', id: 'design' } },
        { subject: { type: 'user', id: 'alice' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } },
        { action: { name: 'owner' }, resource: { type: 'doc', id: 'design' } },
      ],
    });
    expect(res.body).toEqual({ evaluations: [{ decision: true }, { decision: true }, { decision: false }] });
  });

  it('searches subjects with list-users, resources with list-objects, actions with checks', async () => {
    const subjects = await pdp.post('search/subject', {
      subject: { type: 'user' },
      action: { name: 'viewer' },
      resource: { type: 'doc', id: 'design' },
      context: { now: '2029-06-01T00:00:00Z' },
    });
    expect(subjects.body).toEqual({
      page: { next_token: '', count: 3 },
      results: [
        { type: 'user', id: 'anne' },
        { type: 'user', id: 'bob' },
        { type: 'user', id: 'carl' },
      ],
    });
    // Without the condition's parameter, FGA refuses the listing (as OpenFGA's list-users does): nothing is found.
    const unconditioned = await pdp.post('search/subject', { subject: { type: 'user' }, action: { name: 'viewer' }, resource: { type: 'doc', id: 'design' } });
    expect(unconditioned.body).toEqual({ page: { next_token: '', count: 0 }, results: [] });
    const resources = await pdp.post('search/resource', { subject: { type: 'user', id: 'anne' }, action: { name: 'viewer' }, resource: { type: 'folder' } });
    expect(resources.body).toEqual({
      page: { next_token: '', count: 2 },
      results: [
        { type: 'folder', id: 'root' },
        { type: 'folder', id: 'specs' },
      ],
    });
    const paged = await pdp.post('search/resource', {
      subject: { type: 'user', id: 'anne' },
      action: { name: 'viewer' },
      resource: { type: 'folder' },
      page: { limit: 1 },
    });
    expect(paged.body).toMatchObject({ page: { count: 1, next_token: expect.stringMatching(/.+/) }, results: [{ type: 'folder', id: 'root' }] });
    const actions = await pdp.post('search/action', { subject: { type: 'user', id: 'bob' }, resource: { type: 'doc', id: 'design' } });
    expect(actions.body).toEqual({ page: { next_token: '', count: 3 }, results: [{ name: 'editor' }, { name: 'owner' }, { name: 'viewer' }] });
  });

  it('logs FGA decisions with the granting path', async () => {
    await decide('user:anne', 'viewer', 'doc:design');
    const url = `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/authzen/decisions?resourceType=doc`;
    const granted = async () => {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
      const { decisions } = res.json() as { decisions: { subject: { id: string }; reason: Record<string, unknown>; resource: { type: string } }[] };
      return decisions.filter((d) => d.reason.code === 'fga.granted' && d.subject.id === 'anne');
    };
    await expect.poll(async () => (await granted()).length, { timeout: 5000 }).toBeGreaterThan(0);
    const decisions = await granted();
    expect(decisions[0]).toMatchObject({ resource: { type: 'doc' }, reason: { code: 'fga.granted', path: expect.arrayContaining(['user:anne']) } });
  });
});
