import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let users: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
// An environment of its own for every test: what one test adds never shows in another's lists.
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/groups`;
  users = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`;
});
afterAll(() => t.close());

const ts = expect.any(String);
const call = (method: 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const create = (payload: object) => call('POST', base, payload);
const newUser = async (userName: string) => (await call('POST', users, { userName })).json().user as { id: string; userName: string };
const eventsOf = async (subjectId: string) => (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.subject?.id === subjectId);

describe('directory groups', () => {
  it('answers an empty patch with the group unchanged, writing and emitting nothing', async () => {
    const { group } = (await create({ name: 'Quiet' })).json();
    const res = await call('PATCH', `${base}/${group.id}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().group).toEqual(group);
    expect((await eventsOf(group.id)).map((e) => e.type)).toEqual(['directory.group.created']);
  });

  it('creates, gets, patches and deletes a group, auditing and emitting each change', async () => {
    const res = await create({ name: 'Engineering', description: 'Builders\nof things', externalId: 'eng', attributes: { costCenter: 42 } });
    expect(res.statusCode, res.body).toBe(201);
    const { group } = res.json();
    expect(group).toEqual({
      id: expect.any(String),
      environmentId,
      name: 'Engineering',
      description: 'Builders\nof things',
      externalId: 'eng',
      attributes: { costCenter: 42 },
      memberCount: 0,
      createdAt: ts,
      updatedAt: ts,
    });
    expect((await call('GET', `${base}/${group.id}`)).json()).toEqual({ group });

    const patched = await call('PATCH', `${base}/${group.id}`, { name: 'Eng', externalId: null, attributes: {} });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().group).toMatchObject({ name: 'Eng', description: 'Builders\nof things', externalId: null, attributes: {} });

    const deleted = await call('DELETE', `${base}/${group.id}`);
    expect(deleted.json()).toEqual({ success: true, id: group.id });
    expect((await call('GET', `${base}/${group.id}`)).json().code).toBe('group.not_found');

    const events = await eventsOf(group.id);
    expect(events.map((e) => e.type)).toEqual(['directory.group.created', 'directory.group.updated', 'directory.group.deleted']);
    expect(events[0]).toMatchObject({ environmentId, data: { group } });
    const audit = await auditEntries(t, { tenantId }, { resourceId: group.id });
    expect(audit.map((e) => e.action)).toEqual(['directory.group.create', 'directory.group.update', 'directory.group.delete']);
    expect(audit[1]!.changes).toMatchObject({ before: { name: 'Engineering', externalId: 'eng' }, after: { name: 'Eng', externalId: null } });
  });

  it('lists groups a page at a time, by name (case-insensitively) and externalId', async () => {
    for (const [i, name] of ['Alpha', 'Beta', 'Gamma'].entries()) await create({ name, externalId: `g${i}` });
    const page = async (query: Record<string, string>) => (await t.app.inject({ method: 'GET', url: base, query, headers: bearer(token) })).json();
    const first = await page({ limit: '2' });
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.groups.map((g: { name: string }) => g.name)).toEqual(['Alpha', 'Beta']);
    const last = await page({ limit: '2', cursor: first.nextCursor });
    expect(last).toMatchObject({ total: 3, hasMore: false, nextCursor: null, groups: [{ name: 'Gamma' }] });
    expect(await page({ name: 'BETA' })).toMatchObject({ total: 1, groups: [{ name: 'Beta' }] });
    expect(await page({ externalId: 'g2' })).toMatchObject({ total: 1, groups: [{ name: 'Gamma' }] });
  });

  it('adds and removes members: 201 then 200 when added again, 404 when not a member, with events', async () => {
    const { group } = (await create({ name: 'Ops' })).json();
    const [ann, bob] = [await newUser('ann'), await newUser('bob')];
    const added = await call('PUT', `${base}/${group.id}/members/${ann.id}`);
    expect(added.statusCode).toBe(201);
    expect(added.json().group).toMatchObject({ id: group.id, memberCount: 1 });
    const again = await call('PUT', `${base}/${group.id}/members/${ann.id}`, {});
    expect([again.statusCode, again.json().group.memberCount]).toEqual([200, 1]);
    const unknown = await call('PUT', `${base}/${group.id}/members/${bob.id}`, { role: 'owner' });
    expect([unknown.statusCode, unknown.json().details]).toEqual([400, [{ path: 'body.role', message: 'is not a known field' }]]);
    expect((await call('PUT', `${base}/${group.id}/members/${bob.id}`)).statusCode).toBe(201);

    const members = (await call('GET', `${base}/${group.id}/members`)).json();
    expect(members).toMatchObject({ total: 2, hasMore: false, nextCursor: null });
    expect(members.users.map((u: { userName: string }) => u.userName)).toEqual(['ann', 'bob']);
    const paged = (
      await t.app.inject({ method: 'GET', url: `${base}/${group.id}/members`, query: { limit: '1', offset: '1' }, headers: bearer(token) })
    ).json();
    expect(paged).toMatchObject({ total: 2, hasMore: false, users: [{ userName: 'bob' }] });
    const annGroups = (await call('GET', `${users}/${ann.id}/groups`)).json();
    expect(annGroups).toMatchObject({ total: 1, hasMore: false, nextCursor: null, groups: [{ id: group.id, name: 'Ops', memberCount: 2 }] });

    const removed = await call('DELETE', `${base}/${group.id}/members/${ann.id}`);
    expect([removed.statusCode, removed.json().group.memberCount]).toEqual([200, 1]);
    const notMember = await call('DELETE', `${base}/${group.id}/members/${ann.id}`);
    expect([notMember.statusCode, notMember.json().code]).toEqual([404, 'group.member_not_found']);
    expect((await call('GET', `${users}/${ann.id}/groups`)).json()).toMatchObject({ total: 0, groups: [] });

    const events = await eventsOf(group.id);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['directory.group.created', { group }],
      ['directory.group.member_added', { groupId: group.id, userId: ann.id }],
      ['directory.group.member_added', { groupId: group.id, userId: bob.id }],
      ['directory.group.member_removed', { groupId: group.id, userId: ann.id }],
    ]);
    const audit = await auditEntries(t, { tenantId }, { resourceId: group.id });
    expect(audit.map((e) => e.action)).toEqual([
      'directory.group.create',
      'directory.group.member_add',
      'directory.group.member_add',
      'directory.group.member_remove',
    ]);
  });

  it('drops the memberships of a deleted user', async () => {
    const { group } = (await create({ name: 'Ops' })).json();
    const ann = await newUser('ann');
    await call('PUT', `${base}/${group.id}/members/${ann.id}`);
    await call('DELETE', `${users}/${ann.id}`);
    expect((await call('GET', `${base}/${group.id}`)).json().group.memberCount).toBe(0);
  });

  it('answers 404 for a user or group of another environment', async () => {
    const { group } = (await create({ name: 'Ops' })).json();
    const elsewhere = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/directory`;
    const stranger = (await call('POST', `${elsewhere}/users`, { userName: `stranger-${environmentId}` })).json().user;
    const theirGroup = (await call('POST', `${elsewhere}/groups`, { name: `Theirs ${environmentId}` })).json().group;
    const ann = await newUser('ann');
    for (const [method, url, code] of [
      ['PUT', `${base}/${group.id}/members/${stranger.id}`, 'user.not_found'],
      ['DELETE', `${base}/${group.id}/members/${stranger.id}`, 'user.not_found'],
      ['PUT', `${base}/${theirGroup.id}/members/${ann.id}`, 'group.not_found'],
      ['GET', `${base}/${theirGroup.id}`, 'group.not_found'],
      ['GET', `${base}/${theirGroup.id}/members`, 'group.not_found'],
      ['PATCH', `${base}/${theirGroup.id}`, 'group.not_found'],
      ['DELETE', `${base}/${theirGroup.id}`, 'group.not_found'],
    ] as const) {
      const res = await call(method, url, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([res.statusCode, res.json().code], `${method} ${url}`).toEqual([404, code]);
    }
  });

  it('refuses a taken name (case-insensitively) or externalId, also when two creates race', async () => {
    await create({ name: 'Admins', externalId: 'adm' });
    const name = await create({ name: 'ADMINS' });
    expect([name.statusCode, name.json().code, name.json().details]).toEqual([
      409,
      'directory.group_name_taken',
      [{ path: 'body.name', message: 'admins is already the name of another group in this environment' }],
    ]);
    expect((await create({ name: 'Other', externalId: 'adm' })).json().code).toBe('directory.group_external_id_taken');
    const { group } = (await create({ name: 'Mine' })).json();
    expect((await call('PATCH', `${base}/${group.id}`, { name: 'admins' })).json().code).toBe('directory.group_name_taken');
    const raced = await Promise.all([create({ name: 'Race' }), create({ name: 'race' })]);
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it.each([
    [{}, 'body.name', /expected string/],
    [{ name: 'a\u001bb' }, 'body.name', /control/],
    [{ name: 'x'.repeat(201) }, 'body.name', /at most 200/],
    [{ name: 'a', attributes: 'x' }, 'body.attributes', /object|record/],
    [{ name: 'a', members: [] }, 'body.members', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await create(payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it("hides another organization's groups and members", async () => {
    const { group } = (await create({ name: 'Hidden' })).json();
    const ann = await newUser('ann');
    const other = await otherOrganization(t);
    for (const [method, url] of [
      ['GET', `${base}/${group.id}`],
      ['GET', `${base}/${group.id}/members`],
      ['PUT', `${base}/${group.id}/members/${ann.id}`],
      ['DELETE', `${base}/${group.id}`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(other.token) });
      expect([res.statusCode, res.json().code], `${method} ${url}`).toEqual([404, 'tenant.not_found']);
    }
    expect((await call('GET', `${base}/${group.id}`)).statusCode).toBe(200);
  });
});
