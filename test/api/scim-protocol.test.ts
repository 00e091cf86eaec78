// Protocol conformance beyond CRUD, as RFC 7644 and real clients use it: 405 with Allow for a wrong method on a known
// path (discovery and HRIS too), POST /.search (root and per resource), sorting by each attribute's caseExact, and
// conditional GET with If-None-Match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ERROR, GROUP, hris, LIST, scim, scimEnvironment, USER, type ScimEnvironment } from '../helpers/scim.ts';

const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
let t: TestApp;
let env: ScimEnvironment;
let hrisEnv: ScimEnvironment;
const tag = `s${crypto.randomUUID().slice(0, 8)}`;
// userName is caseExact=false, externalId caseExact=true: the two orders differ.
const people = [
  { userName: `${tag}-alice`, externalId: `${tag}b` },
  { userName: `${tag}-Bob`, externalId: `${tag}A` },
  { userName: `${tag}-carol`, externalId: `${tag}a` },
  { userName: `${tag}-Dave`, externalId: `${tag}B` },
];
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t);
  hrisEnv = await scimEnvironment(t, 'hris');
  for (const p of people) expect((await scim(t, env.token, 'POST', '/Users', { schemas: [USER], ...p })).status).toBe(201);
  expect((await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: `${tag} group`, externalId: `${tag}g` })).status).toBe(201);
});
afterAll(() => t.close());

const names = (body: { Resources: { userName?: string; displayName?: string }[] }) => body.Resources.map((r) => r.userName ?? r.displayName);
const short = (n: string | undefined) => n?.replace(`${tag}-`, '');

describe('a wrong method on a known SCIM path', () => {
  it.each([
    ['PUT', '/Users', 'GET, HEAD, POST'],
    ['DELETE', '/Groups', 'GET, HEAD, POST'],
    ['POST', `/Users/${crypto.randomUUID()}`, 'DELETE, GET, HEAD, PATCH, PUT'],
    ['DELETE', '/ServiceProviderConfig', 'GET, HEAD'],
    ['POST', '/Schemas', 'GET, HEAD'],
    ['PUT', '/ResourceTypes/User', 'GET, HEAD'],
    ['GET', '/Bulk', 'POST'],
  ] as const)('answers %s %s with 405, a SCIM error and Allow: %s', async (method, path, allow) => {
    const res = await scim(t, env.token, method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(res.body).toEqual({ schemas: [ERROR], status: '405', detail: expect.stringContaining(method) });
  });

  it('answers 405 on the HRIS mount too, and still 404 for an unknown path', async () => {
    const wrong = await hris(t, hrisEnv.token, 'PUT', '/Employees', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    expect(wrong.body).toMatchObject({ schemas: [ERROR], status: '405' });
    const unknown = await scim(t, env.token, 'DELETE', '/Nope');
    expect(unknown.status).toBe(404);
  });
});

describe('sorting', () => {
  it('sorts userName ignoring case and the caseExact externalId exactly, both ways', async () => {
    const list = async (query: string) => (await scim(t, env.token, 'GET', `/Users?filter=${encodeURIComponent(`userName sw "${tag}"`)}&${query}`)).body;
    expect(names(await list('sortBy=userName')).map(short)).toEqual(['alice', 'Bob', 'carol', 'Dave']);
    expect(names(await list('sortBy=userName&sortOrder=descending')).map(short)).toEqual(['Dave', 'carol', 'Bob', 'alice']);
    expect(names(await list('sortBy=externalId')).map(short)).toEqual(['Bob', 'Dave', 'carol', 'alice']);
  });
});

describe('POST /.search', () => {
  it('answers a SearchRequest on /Users/.search with a ListResponse: filter, attributes, sortBy, paging', async () => {
    const res = await scim(t, env.token, 'POST', '/Users/.search', {
      schemas: [SEARCH],
      attributes: ['userName', 'externalId'],
      filter: `userName sw "${tag}"`,
      sortBy: 'userName',
      sortOrder: 'descending',
      startIndex: 2,
      count: 2,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(res.body).toEqual({
      schemas: [LIST],
      totalResults: 4,
      startIndex: 2,
      itemsPerPage: 2,
      Resources: [
        { schemas: [USER], id: expect.any(String), userName: `${tag}-carol`, externalId: `${tag}a` },
        { schemas: [USER], id: expect.any(String), userName: `${tag}-Bob`, externalId: `${tag}A` },
      ],
    });
    const groups = await scim(t, env.token, 'POST', '/Groups/.search', {
      schemas: [SEARCH],
      filter: `externalId eq "${tag}g"`,
      excludedAttributes: ['members'],
    });
    expect(groups.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: `${tag} group` }] });
    expect(groups.body.Resources[0].members).toBeUndefined();
  });

  it('searches Users and Groups at the root, paging across both', async () => {
    const all = await scim(t, env.token, 'POST', '/.search', { schemas: [SEARCH], filter: `externalId sw "${tag}"`, attributes: ['externalId'] });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ schemas: [LIST], totalResults: 5, startIndex: 1, itemsPerPage: 5 });
    expect(all.body.Resources.map((r: { schemas: string[] }) => r.schemas[0])).toEqual([USER, USER, USER, USER, GROUP]);
    const page = await scim(t, env.token, 'POST', '/.search', { schemas: [SEARCH], filter: `externalId sw "${tag}"`, startIndex: 4, count: 2 });
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 4, itemsPerPage: 2 });
    expect(names(page.body).map(short)).toEqual(['Dave', `${tag} group`]);
    const usersOnly = await scim(t, env.token, 'POST', '/.search', { schemas: [SEARCH], filter: `userName sw "${tag}"` });
    expect(usersOnly.body).toMatchObject({ totalResults: 4 });
  });

  it('refuses a body that is no SearchRequest with 400 invalidSyntax', async () => {
    const res = await scim(t, env.token, 'POST', '/Users/.search', { schemas: [USER], filter: 'userName pr' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidSyntax' });
    const bad = await scim(t, env.token, 'POST', '/.search', { schemas: [SEARCH], count: 'ten' });
    expect(bad.body).toMatchObject({ status: '400', scimType: 'invalidValue', detail: expect.stringContaining('count') });
  });
});

describe('conditional GET', () => {
  it('answers If-None-Match with the current ETag by 304 without a body, and another ETag by 200', async () => {
    const created = await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: `etag-${tag}` });
    const etag = created.headers.etag as string;
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/scim/v2/Users/${created.body.id}`,
      headers: { authorization: `Bearer ${env.token}`, 'if-none-match': etag },
    });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(etag);
    const other = await scim(t, env.token, 'GET', `/Users/${created.body.id}`, undefined, { 'if-none-match': 'W/"1"' });
    expect(other.status).toBe(200);
    expect(other.body.userName).toBe(`etag-${tag}`);
    const group = await scim(t, env.token, 'GET', `/Groups?filter=${encodeURIComponent(`externalId eq "${tag}g"`)}`);
    const id = group.body.Resources[0].id;
    const current = (await scim(t, env.token, 'GET', `/Groups/${id}`)).headers.etag as string;
    expect((await scim(t, env.token, 'GET', `/Groups/${id}`, undefined, { 'if-none-match': current })).status).toBe(304);
  });
});
