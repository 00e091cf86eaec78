// POST /access/v1/search/{subject,resource,action}: what an evaluation would permit, paged with opaque tokens to
// the last page; unknown ids and types find nothing; missing inputs are 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';

let t: TestApp;
let pdp: Pdp;
let docs: Pdp;

const ids = Array.from({ length: 120 }, (_, i) => `doc-${String(i).padStart(3, '0')}`);

beforeAll(async () => {
  t = await startTestApp();
  pdp = await authzenEnvironment(t, {
    users: ['u0', 'u1', 'u2', 'u3', 'u4'].map((userName) => ({ userName })),
    groups: [{ name: 'readers' }],
    memberships: [['u3', 'readers']],
    resourceTypes: [{ key: 'document', actions: ['read', 'write', 'delete'] }],
    resources: ids.map((id) => ({ type: 'document', id })),
    roles: [
      { key: 'viewer', permissions: [{ type: 'document', action: 'read' }] },
      { key: 'writer', permissions: [{ type: 'document', action: 'write' }] },
    ],
    assignments: [
      { role: 'viewer', user: 'u0' },
      { role: 'viewer', user: 'u1' },
      { role: 'viewer', user: 'u2' },
      { role: 'viewer', group: 'readers' },
      { role: 'writer', user: 'u1', resources: [{ type: 'document', id: 'doc-007' }] },
    ],
  });
  docs = await authzenEnvironment(t);
});
afterAll(() => t?.close());

type Page = { page: { next_token: string; count: number }; results: unknown[] };
const user = (id: string) => ({ type: 'user', id });
const doc = (id: string) => ({ type: 'document', id });

describe('POST /access/v1/search/resource', () => {
  const request = { subject: user('u0'), action: { name: 'read' }, resource: { type: 'document' } };

  it('pages through every permitted resource to the last page', async () => {
    const seen: unknown[] = [];
    let token: string | undefined;
    const counts: number[] = [];
    do {
      const res = await pdp.post('search/resource', { ...request, page: { limit: 50, ...(token ? { token } : {}) } });
      expect(res.status).toBe(200);
      const body = res.body as Page;
      expect(Object.keys(body)).toEqual(['page', 'results']); // page first
      counts.push(body.page.count);
      seen.push(...body.results);
      token = body.page.next_token;
    } while (token);
    expect(counts).toEqual([50, 50, 20]);
    expect(seen).toEqual(ids.map(doc));
  });

  it('defaults to pages of 50 and ignores a resource id', async () => {
    const res = await pdp.post('search/resource', { ...request, resource: doc('doc-000') });
    expect((res.body as Page).page).toEqual({ next_token: expect.stringMatching(/^[A-Za-z0-9_-]+$/), count: 50 });
  });

  it('finds only the instances a limited grant lists', async () => {
    const res = await pdp.post('search/resource', { ...request, subject: user('u1'), action: { name: 'write' } });
    expect(res.body).toEqual({ page: { next_token: '', count: 1 }, results: [doc('doc-007')] });
  });

  it('400 authzen.page_mismatch when a follow-up changes the request', async () => {
    const first = (await pdp.post('search/resource', { ...request, page: { limit: 10 } })).body as Page;
    const other = await pdp.post('search/resource', { ...request, subject: user('u1'), page: { limit: 10, token: first.page.next_token } });
    expect(other).toMatchObject({ status: 400, body: { code: 'authzen.page_mismatch', details: [{ path: 'body.page.token', message: expect.any(String) }] } });
    const limit = await pdp.post('search/resource', { ...request, page: { limit: 20, token: first.page.next_token } });
    expect(limit).toMatchObject({ status: 400, body: { code: 'authzen.page_mismatch' } });
    // Key order does not matter.
    const same = await pdp.post('search/resource', {
      page: { token: first.page.next_token, limit: 10 },
      resource: request.resource,
      action: request.action,
      subject: request.subject,
    });
    expect(same).toMatchObject({ status: 200, body: { page: { count: 10 }, results: ids.slice(10, 20).map(doc) } });
  });

  it.each(['garbage!', 'bm9wZQ', Buffer.from('99.AAAAAAAAAAAAAAAAAAAAAA').toString('base64url')])('400 for the page token %s', async (token) => {
    const res = await pdp.post('search/resource', { ...request, page: { token } });
    expect(res.status).toBe(400);
    expect(['authzen.invalid_page_token', 'authzen.page_mismatch']).toContain((res.body as { code: string }).code);
  });

  it.each([
    ['an unknown subject', { subject: user('nobody') }],
    ['an unknown resource type', { resource: { type: 'folder' } }],
    ['an unknown subject type', { subject: { type: 'robot', id: 'r1' } }],
    ['an unknown action', { action: { name: 'fly' } }],
  ])('200 with no results for %s', async (_what, change) => {
    const res = await pdp.post('search/resource', { ...request, ...change });
    expect(res).toMatchObject({ status: 200, body: { page: { next_token: '', count: 0 }, results: [] } });
  });

  it.each([
    ['a missing subject', { subject: undefined }, 'body.subject'],
    ['a subject without id', { subject: { type: 'user' } }, 'body.subject.id'],
    ['a missing action', { action: undefined }, 'body.action'],
    ['a missing resource', { resource: undefined }, 'body.resource'],
    ['a resource without type', { resource: {} }, 'body.resource.type'],
    ['a negative limit', { page: { limit: -1 } }, 'body.page.limit'],
    ['a limit above 1000', { page: { limit: 1001 } }, 'body.page.limit'],
    ['a numeric token', { page: { token: 5 } }, 'body.page.token'],
  ])('400 for %s', async (_what, change, path) => {
    const res = await pdp.post('search/resource', { ...request, ...change });
    expect(res).toMatchObject({ status: 400, body: { code: 'request.invalid', details: [expect.objectContaining({ path })] } });
  });

  it('a limit of 0 returns no results', async () => {
    const res = await pdp.post('search/resource', { ...request, page: { limit: 0 } });
    expect(res).toMatchObject({ status: 200, body: { page: { count: 0 }, results: [] } });
  });
});

describe('POST /access/v1/search/subject', () => {
  const request = { subject: { type: 'user' }, action: { name: 'read' }, resource: doc('doc-005') };

  it('finds the users permitted, directly or through a group, and ignores a subject id', async () => {
    const res = await pdp.post('search/subject', { ...request, subject: { type: 'user', id: 'ignored' } });
    const body = res.body as Page;
    expect(body.page).toEqual({ next_token: '', count: 4 });
    // Users are named by userName, in creation order (these were created in one transaction).
    expect(body.results).toEqual(expect.arrayContaining(['u0', 'u1', 'u2', 'u3'].map(user)));
  });

  it('pages with a token', async () => {
    const all = ((await pdp.post('search/subject', request)).body as Page).results;
    const first = (await pdp.post('search/subject', { ...request, page: { limit: 3 } })).body as Page;
    expect(first.results).toEqual(all.slice(0, 3));
    const second = await pdp.post('search/subject', { ...request, page: { limit: 3, token: first.page.next_token } });
    expect(second.body).toEqual({ page: { next_token: '', count: 1 }, results: all.slice(3) });
  });

  it.each([
    ['an unknown resource id', { resource: doc('doc-999') }],
    ['an unknown subject type', { subject: { type: 'robot' } }],
  ])('200 with no results for %s', async (_what, change) => {
    const res = await pdp.post('search/subject', { ...request, ...change });
    expect(res).toMatchObject({ status: 200, body: { page: { next_token: '', count: 0 }, results: [] } });
  });

  it.each([
    ['a missing subject', { subject: undefined }, 'body.subject'],
    ['a subject without type', { subject: {} }, 'body.subject.type'],
    ['a resource without id', { resource: { type: 'document' } }, 'body.resource.id'],
    ['a missing action', { action: undefined }, 'body.action'],
  ])('400 for %s', async (_what, change, path) => {
    const res = await pdp.post('search/subject', { ...request, ...change });
    expect(res).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ path })] } });
  });
});

describe('POST /access/v1/search/action', () => {
  it('finds the actions permitted, by name, and needs no action', async () => {
    const res = await docs.post('search/action', { subject: user('alice'), resource: doc('doc-1') });
    expect(res.body).toEqual({ page: { next_token: '', count: 2 }, results: [{ name: 'delete' }, { name: 'read' }] });
    const ignored = await docs.post('search/action', { subject: user('alice'), resource: doc('doc-1'), action: { name: 'write' } });
    expect(ignored.body).toEqual(res.body);
  });

  it('pages with a token', async () => {
    const first = (await docs.post('search/action', { subject: user('alice'), resource: doc('doc-1'), page: { limit: 1 } })).body as Page;
    expect(first).toEqual({ page: { next_token: expect.stringMatching(/./), count: 1 }, results: [{ name: 'delete' }] });
    const second = await docs.post('search/action', { subject: user('alice'), resource: doc('doc-1'), page: { limit: 1, token: first.page.next_token } });
    expect(second.body).toMatchObject({ results: [{ name: 'read' }] });
  });

  it('200 with no results for an unknown resource', async () => {
    const res = await docs.post('search/action', { subject: user('alice'), resource: doc('doc-404') });
    expect(res).toMatchObject({ status: 200, body: { results: [] } });
  });

  it.each([
    ['a missing subject', { resource: doc('doc-1') }, 'body.subject'],
    ['a resource without id', { subject: user('alice'), resource: { type: 'document' } }, 'body.resource.id'],
    ['a missing resource', { subject: user('alice') }, 'body.resource'],
  ])('400 for %s', async (_what, body, path) => {
    const res = await docs.post('search/action', body);
    expect(res).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ path })] } });
  });
});
