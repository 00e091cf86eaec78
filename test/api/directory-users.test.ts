import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
// An environment of its own for every test: what one test adds never shows in another's lists.
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`;
});
afterAll(() => t.close());

const ts = expect.any(String);
const id = expect.any(String);
const create = (payload: object, url = base) => t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
const call = (method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const list = async (query: Record<string, string>) => {
  const res = await t.app.inject({ method: 'GET', url: base, query, headers: bearer(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { users: { id: string; userName: string }[]; nextCursor: string | null; hasMore: boolean };
};
const namesOf = async (query: Record<string, string>) => (await list(query)).users.map((u) => u.userName);
const eventsOf = async (subjectId: string) => (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.subject?.id === subjectId);

describe('directory users', () => {
  it('creates a user with every field, generated sub-item ids and attributes, and gets it', async () => {
    const res = await create({
      userName: 'ada@example.com',
      externalId: 'hr-1',
      displayName: 'Ada Lovelace',
      nickName: 'Ada',
      profileUrl: 'https://example.com/ada',
      title: 'Analyst',
      userType: 'employee',
      preferredLanguage: 'en',
      locale: 'en-GB',
      timezone: 'Europe/London',
      names: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'Ada@Example.com', type: 'work' }, { value: 'ada@home.example' }],
      phoneNumbers: [{ value: '+44 20 0000 0000', type: 'work' }],
      addresses: [{ locality: 'London', country: 'GB', type: 'home' }],
      photos: [{ value: 'https://example.com/ada.png' }],
      attributes: { department: 'engineering', level: 3, tags: ['math'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { user } = res.json();
    expect(user).toEqual({
      id,
      externalId: 'hr-1',
      userName: 'ada@example.com',
      displayName: 'Ada Lovelace',
      nickName: 'Ada',
      profileUrl: 'https://example.com/ada',
      title: 'Analyst',
      userType: 'employee',
      preferredLanguage: 'en',
      locale: 'en-GB',
      timezone: 'Europe/London',
      active: true,
      names: { id, formatted: null, familyName: 'Lovelace', givenName: 'Ada', middleName: null, honorificPrefix: null, honorificSuffix: null },
      photos: [{ id, value: 'https://example.com/ada.png', type: null }],
      phoneNumbers: [{ id, value: '+44 20 0000 0000', type: 'work' }],
      addresses: [{ id, formatted: null, streetAddress: null, locality: 'London', region: null, postalCode: null, country: 'GB', type: 'home' }],
      emails: [
        { id, value: 'Ada@Example.com', type: 'work' },
        { id, value: 'ada@home.example', type: null },
      ],
      verifications: [],
      provider: 'local',
      createdAt: ts,
      updatedAt: ts,
      environmentId,
      attributes: { department: 'engineering', level: 3, tags: ['math'] },
    });
    expect((await call('GET', `${base}/${user.id}`)).json()).toEqual({ user });
  });

  it('shows the id as externalId when none is given, and finds the user by it', async () => {
    const { user } = (await create({ userName: 'plain' })).json();
    expect(user).toMatchObject({ externalId: user.id, active: true, names: null, emails: [], attributes: {} });
    expect(await namesOf({ externalId: user.id })).toEqual(['plain']);
  });

  it('lists with each filter, and pages with the cursor to the last page', async () => {
    const made: { id: string }[] = [];
    for (const [i, name] of ['amy', 'ann', 'bob', 'bo_b', 'Cy%'].entries()) {
      made.push((await create({ userName: name, externalId: `x${i}`, emails: [{ value: `${name.replace(/[%_]/g, '')}${i}@Corp.example` }] })).json().user);
    }
    await call('POST', `${base}/${made[2]!.id}/deactivate`);
    const groups = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/groups`;
    const group = (await create({ name: 'Ops' }, groups)).json().group;
    await t.app.inject({ method: 'PUT', url: `${groups}/${group.id}/members/${made[1]!.id}`, headers: bearer(token) });

    expect(await namesOf({})).toEqual(['amy', 'ann', 'bob', 'bo_b', 'Cy%']);
    expect(await namesOf({ email: 'AMY0@corp.EXAMPLE' })).toEqual(['amy']);
    expect(await namesOf({ emailPrefix: 'A' })).toEqual(['amy', 'ann']);
    expect(await namesOf({ emailPrefix: 'bo' })).toEqual(['bob', 'bo_b']);
    // LIKE's wildcards are plain characters in a prefix.
    expect(await namesOf({ emailPrefix: 'b_' })).toEqual([]);
    expect(await namesOf({ emailPrefix: '%' })).toEqual([]);
    expect(await namesOf({ userName: 'ANN' })).toEqual(['ann']);
    expect(await namesOf({ userName: 'cy%' })).toEqual(['Cy%']);
    expect(await namesOf({ externalId: 'x3' })).toEqual(['bo_b']);
    expect(await namesOf({ active: 'false' })).toEqual(['bob']);
    expect(await namesOf({ active: 'true', emailPrefix: 'b' })).toEqual(['bo_b']);
    expect(await namesOf({ groupId: group.id })).toEqual(['ann']);

    const seen: string[] = [];
    let page = await list({ limit: '2' });
    for (;;) {
      seen.push(...page.users.map((u) => u.userName));
      if (!page.hasMore) break;
      expect(page.nextCursor).toEqual(expect.any(String));
      page = await list({ limit: '2', cursor: page.nextCursor! });
    }
    expect(page).toMatchObject({ nextCursor: null, hasMore: false });
    expect(seen).toEqual(['amy', 'ann', 'bob', 'bo_b', 'Cy%']);

    const bad = await t.app.inject({ method: 'GET', url: base, query: { cursor: 'nope', active: 'yes' }, headers: bearer(token) });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['querystring.active', 'querystring.cursor']);
  });

  it('patches fields, replacing lists and attributes whole, and audits the change', async () => {
    const { user } = (await create({ userName: 'grace', emails: [{ value: 'g@example.com' }], attributes: { a: 1, b: 2 }, title: 'Dr' })).json();
    const res = await call('PATCH', `${base}/${user.id}`, { emails: [{ value: 'grace@example.com', type: 'work' }], attributes: { c: 3 }, title: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user).toMatchObject({
      userName: 'grace',
      title: null,
      emails: [{ id, value: 'grace@example.com', type: 'work' }],
      attributes: { c: 3 },
    });
    expect(await namesOf({ email: 'g@example.com' })).toEqual([]);
    expect(await namesOf({ email: 'grace@example.com' })).toEqual(['grace']);
    const [entry] = (await auditEntries(t, { tenantId }, { resourceId: user.id })).filter((e) => e.action === 'directory.user.update');
    expect(entry).toMatchObject({
      environmentId,
      resource: { type: 'user', id: user.id },
      changes: { before: { title: 'Dr', attributes: { a: 1, b: 2 } }, after: { title: null, attributes: { c: 3 } } },
    });
  });

  it('answers an empty patch with the user unchanged, writing and emitting nothing', async () => {
    const { user } = (await create({ userName: 'still' })).json();
    const res = await call('PATCH', `${base}/${user.id}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toEqual(user);
    expect((await eventsOf(user.id)).map((e) => e.type)).toEqual(['directory.user.created']);
  });

  it('deactivates and activates idempotently, emitting an event only on a change', async () => {
    const { user } = (await create({ userName: 'linus' })).json();
    const deactivated = await call('POST', `${base}/${user.id}/deactivate`);
    expect(deactivated.statusCode).toBe(200);
    expect(deactivated.json().user).toMatchObject({ id: user.id, active: false });
    expect((await call('POST', `${base}/${user.id}/deactivate`)).json().user.active).toBe(false);
    expect((await call('POST', `${base}/${user.id}/activate`)).json().user.active).toBe(true);
    expect((await call('POST', `${base}/${user.id}/activate`)).json().user.active).toBe(true);
    const events = await eventsOf(user.id);
    expect(events.map((e) => e.type)).toEqual(['directory.user.created', 'directory.user.deactivated', 'directory.user.activated']);
    expect(events[1]).toMatchObject({ environmentId, tenantId, data: { user: { id: user.id, active: false } } });
  });

  it('deletes a user: 200 with its id, then 404, with an event and an audit entry', async () => {
    const { user } = (await create({ userName: 'gone', emails: [{ value: 'gone@example.com' }] })).json();
    const res = await call('DELETE', `${base}/${user.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, id: user.id });
    expect((await call('GET', `${base}/${user.id}`)).json()).toMatchObject({ code: 'user.not_found' });
    expect((await call('DELETE', `${base}/${user.id}`)).statusCode).toBe(404);
    // Its email is free again.
    expect((await create({ userName: 'again', emails: [{ value: 'GONE@example.com' }] })).statusCode).toBe(201);
    const events = await eventsOf(user.id);
    expect(events.map((e) => e.type)).toEqual(['directory.user.created', 'directory.user.deleted']);
    expect(events[1]!.data).toEqual({ user });
    const actions = (await auditEntries(t, { tenantId }, { resourceId: user.id })).map((e) => e.action);
    expect(actions).toEqual(['directory.user.create', 'directory.user.delete']);
  });

  it.each([
    [{ userName: 'ADA' }, 409, 'directory.user_name_taken', 'body.userName', 'ada is already the userName of another user in this environment'],
    [
      { userName: 'x', emails: [{ value: 'A@Example.COM' }] },
      409,
      'directory.email_taken',
      'body.emails',
      'a@example.com is already an email of another user in this environment',
    ],
    [
      { userName: 'y', externalId: 'ext-1' },
      409,
      'directory.external_id_taken',
      'body.externalId',
      'ext-1 is already the externalId of another user in this environment',
    ],
  ])('refuses %o as taken (case-insensitively)', async (payload, status, code, path, message) => {
    expect((await create({ userName: 'ada', externalId: 'ext-1', emails: [{ value: 'a@example.com' }] })).statusCode).toBe(201);
    const res = await create(payload);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ code, details: [{ path, message }] });
  });

  it('refuses a patch that takes another user’s email or userName', async () => {
    await create({ userName: 'one', emails: [{ value: 'one@example.com' }] });
    const { user } = (await create({ userName: 'two' })).json();
    expect((await call('PATCH', `${base}/${user.id}`, { emails: [{ value: 'ONE@example.com' }] })).json().code).toBe('directory.email_taken');
    expect((await call('PATCH', `${base}/${user.id}`, { userName: 'One' })).json().code).toBe('directory.user_name_taken');
    expect((await call('GET', `${base}/${user.id}`)).json().user).toMatchObject({ userName: 'two', emails: [] });
  });

  it('gives one 201 and one 409 to two concurrent creates of the same userName or email', async () => {
    const names = await Promise.all([create({ userName: 'race' }), create({ userName: 'RACE' })]);
    expect(names.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(names.find((r) => r.statusCode === 409)!.json().code).toBe('directory.user_name_taken');
    const emails = await Promise.all([
      create({ userName: 'e1', emails: [{ value: 'same@example.com' }] }),
      create({ userName: 'e2', emails: [{ value: 'Same@example.com' }] }),
    ]);
    expect(emails.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(emails.find((r) => r.statusCode === 409)!.json().code).toBe('directory.email_taken');
  });

  it('keeps userNames and emails per environment', async () => {
    await create({ userName: 'shared', emails: [{ value: 'shared@example.com' }] });
    const other = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/directory/users`;
    const res = await create({ userName: 'shared', emails: [{ value: 'shared@example.com' }] }, other);
    expect(res.statusCode).toBe(201);
    // Another environment's user is unknown here.
    const theirs = res.json().user.id;
    for (const [method, url] of [
      ['GET', `${base}/${theirs}`],
      ['PATCH', `${base}/${theirs}`],
      ['POST', `${base}/${theirs}/deactivate`],
      ['GET', `${base}/${theirs}/groups`],
      ['DELETE', `${base}/${theirs}`],
    ] as const) {
      const answer = await call(method, url, method === 'PATCH' ? { title: 'x' } : undefined);
      expect([answer.statusCode, answer.json().code], `${method} ${url}`).toEqual([404, 'user.not_found']);
    }
  });

  it.each([
    [{}, 'body.userName', /expected string/],
    [{ userName: '  ' }, 'body.userName', /must not be empty/],
    [{ userName: 'a\u202eb' }, 'body.userName', /control or bidirectional/],
    [{ userName: 'a', displayName: 'x\u0007' }, 'body.displayName', /control/],
    [{ userName: 'a', names: { givenName: 'a\nb' } }, 'body.names.givenName', /control/],
    [{ userName: 'a', emails: [{ value: 'not-an-email' }] }, 'body.emails.0.value', /email/],
    [{ userName: 'a', emails: [{ value: 'a@x.example' }, { value: 'A@x.example' }] }, 'body.emails.1.value', /repeats emails.0.value/],
    [{ userName: 'a', photos: [{ value: 'javascript:alert(1)' }] }, 'body.photos.0.value', /http/],
    [{ userName: 'a', active: 'yes' }, 'body.active', /boolean/],
    [{ userName: 'a', attributes: [] }, 'body.attributes', /object|record/],
    [{ userName: 'a', attributes: { big: 'x'.repeat(17_000) } }, 'body.attributes', /16 KiB/],
    [{ userName: 'a', managementScopes: ['*'] }, 'body.managementScopes', /not a known field/],
    [{ userName: 'a', emails: [{ value: 'a@x.example', primary: true }] }, 'body.emails.0.primary', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await create(payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it('needs directory scopes, and hides the directory from another organization', async () => {
    const { user } = (await create({ userName: 'hidden' })).json();
    const reader = await t.token('directory:read');
    expect((await t.app.inject({ method: 'GET', url: `${base}/${user.id}`, headers: bearer(reader) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: base, headers: bearer(reader), payload: { userName: 'no' } })).statusCode).toBe(403);
    const other = await otherOrganization(t);
    for (const url of [base, `${base}/${user.id}`, `${base}/${user.id}/groups`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(other.token) });
      expect([res.statusCode, res.json().code]).toEqual([404, 'tenant.not_found']);
    }
  });
});
