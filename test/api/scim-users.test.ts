// SCIM Users as Okta's spec test and Entra's validator exercise them: create (application/json too), find by
// userName case-insensitively, empty lists for unknown users, 409 on duplicates, PUT with id and meta, soft
// deactivation, ETags, paging. A SCIM user is a directory user: visible in both APIs, with the directory's events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { ENTERPRISE, ERROR, LIST, patch, scim, scimEnvironment, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const okta = (userName: string) => ({
  schemas: [USER],
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: 'Ada Lovelace',
  locale: 'en-US',
  externalId: `00u${crypto.randomUUID().slice(0, 8)}`,
  groups: [],
  password: '1mz050nq',
  active: true,
});
const filter = (text: string) => `/Users?filter=${encodeURIComponent(text)}`;

describe('Okta spec test sequence', () => {
  it('creates with application/json, finds by userName in any case, answers 200 empty for unknown, 409 for a duplicate', async () => {
    const body = okta('Okta.User@Example.com');
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/scim/v2/Users',
      headers: { ...bearer(env.token), 'content-type': 'application/json' },
      payload: body,
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    const user = created.json();
    expect(user).toEqual({
      schemas: [USER],
      id: expect.any(String),
      externalId: body.externalId,
      userName: 'Okta.User@Example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      displayName: 'Ada Lovelace',
      locale: 'en-US',
      active: true,
      emails: [{ value: 'Okta.User@Example.com', type: 'work', primary: true }],
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `http://localhost:80/v1/scim/v2/Users/${user.id}`,
        version: expect.stringMatching(/^W\/"\d+"$/),
      },
    });
    expect(created.headers.location).toBe(user.meta.location);
    expect(created.headers.etag).toBe(user.meta.version);

    const found = await scim(t, env.token, 'GET', filter('userName eq "okta.user@example.COM"'));
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [user] });

    const unknown = await scim(t, env.token, 'GET', filter(`userName eq "${crypto.randomUUID()}@example.com"`));
    expect(unknown).toMatchObject({ status: 200, body: { schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] } });

    const duplicate = await scim(t, env.token, 'POST', '/Users', okta('okta.user@example.com'));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ schemas: [ERROR], status: '409', scimType: 'uniqueness', detail: expect.stringMatching(/userName/) });

    const missing = await scim(t, env.token, 'GET', `/Users/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ schemas: [ERROR], status: '404', detail: expect.any(String) });
  });

  it('replaces with PUT (id and meta in the body ignored) and deactivates with a pathless PATCH; the user stays readable and listed', async () => {
    const user = (await scim(t, env.token, 'POST', '/Users', okta('put.me@example.com'))).body;
    const put = await scim(t, env.token, 'PUT', `/Users/${user.id}`, {
      ...user,
      id: 'ignored',
      meta: { resourceType: 'x' },
      name: { givenName: 'Augusta', familyName: 'King' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: user.id, name: { givenName: 'Augusta', familyName: 'King' }, active: true });
    expect(put.headers.etag).toBe(put.body.meta.version);
    expect(put.body.meta.version).not.toBe(user.meta.version);

    const off = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'replace', value: { active: false } }));
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await scim(t, env.token, 'GET', `/Users/${user.id}`)).body.active).toBe(false);
    expect((await scim(t, env.token, 'GET', filter('userName eq "put.me@example.com"'))).body.Resources[0]).toMatchObject({ id: user.id, active: false });

    // Okta's AIW apps deactivate with PUT; PUT without `active` keeps it.
    const on = await scim(t, env.token, 'PUT', `/Users/${user.id}`, { ...okta('put.me@example.com'), active: 'True' });
    expect(on.body.active).toBe(true);
    const withoutActive: Record<string, unknown> = okta('put.me@example.com');
    delete withoutActive.active;
    expect((await scim(t, env.token, 'PUT', `/Users/${user.id}`, withoutActive)).body.active).toBe(true);
  });
});

describe('Users', () => {
  it('never returns the password and accepts PascalCase names, string booleans and unknown attributes', async () => {
    const res = await scim(t, env.token, 'POST', '/Users', {
      Schemas: [USER, 'urn:example:unknown'],
      UserName: 'pascal@example.com',
      Active: 'False',
      Name: { GivenName: 'Pas', FamilyName: 'Cal' },
      Emails: { value: 'pascal@example.com', type: 'work', display: 'not advertised' },
      favouriteColour: 'green',
      password: 'secret',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userName: 'pascal@example.com', active: false, name: { givenName: 'Pas', familyName: 'Cal' } });
    expect(res.body.emails).toEqual([{ value: 'pascal@example.com', type: 'work', primary: false }]);
    expect(JSON.stringify(res.body)).not.toMatch(/password|secret|favouriteColour|display"/);
  });

  it("builds meta.location from the request's host", async () => {
    const res = await scim(t, env.token, 'POST', '/Users', { userName: 'located@example.com' }, { host: 'iam.example.com' });
    expect(res.body.meta.location).toBe(`http://iam.example.com/v1/scim/v2/Users/${res.body.id}`);
    expect(res.headers.location).toBe(res.body.meta.location);
  });

  it('answers 412 for a stale If-Match and applies a current one', async () => {
    const user = (await scim(t, env.token, 'POST', '/Users', { userName: 'etag@example.com' })).body;
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'replace', path: 'title', value: 'Engineer' }));
    const stale = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'replace', path: 'title', value: 'Boss' }), {
      'if-match': user.meta.version,
    });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ schemas: [ERROR], status: '412' });
    const current = (await scim(t, env.token, 'GET', `/Users/${user.id}`)).headers.etag as string;
    const fresh = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'replace', path: 'title', value: 'Boss' }), { 'if-match': current });
    expect(fresh).toMatchObject({ status: 200, body: { title: 'Boss' } });
    expect((await scim(t, env.token, 'DELETE', `/Users/${user.id}`, undefined, { 'if-match': current })).status).toBe(412);
  });

  it('pages with integer startIndex and count in a stable order (Entra: startIndex=N*5+1), and sorts', async () => {
    const paged = await scimEnvironment(t);
    for (let i = 0; i < 12; i++) await scim(t, paged.token, 'POST', '/Users', { userName: `page${String(i).padStart(2, '0')}@example.com` });
    const seen: string[] = [];
    for (let n = 0; n < 3; n++) {
      const page = await scim(t, paged.token, 'GET', `/Users?startIndex=${n * 5 + 1}&count=5`);
      expect(page.body).toMatchObject({ totalResults: 12, startIndex: n * 5 + 1, itemsPerPage: n < 2 ? 5 : 2 });
      seen.push(...page.body.Resources.map((u: { userName: string }) => u.userName));
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `page${String(i).padStart(2, '0')}@example.com`));
    const sorted = await scim(t, paged.token, 'GET', '/Users?sortBy=userName&sortOrder=descending&count=2&attributes=userName');
    expect(sorted.body.Resources).toEqual([
      { schemas: [USER], id: expect.any(String), userName: 'page11@example.com' },
      { schemas: [USER], id: expect.any(String), userName: 'page10@example.com' },
    ]);
    expect((await scim(t, paged.token, 'GET', '/Users?count=0')).body).toMatchObject({ totalResults: 12, itemsPerPage: 0, Resources: [] });
    expect((await scim(t, paged.token, 'GET', '/Users?count=1')).body.itemsPerPage).toBe(1);
    const bad = await scim(t, paged.token, 'GET', '/Users?startIndex=abc');
    expect(bad).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  it('is the directory user: visible through the directory API and back, deleted from both', async () => {
    const created = (await scim(t, env.token, 'POST', '/Users', { userName: 'both@example.com', [ENTERPRISE]: { department: 'R&D', employeeNumber: '42' } }))
      .body;
    const directory = `${env.base}/directory/users`;
    const token = await t.token();
    const seen = await t.app.inject({ method: 'GET', url: `${directory}/${created.id}`, headers: bearer(token) });
    expect(seen.json().user).toMatchObject({ userName: 'both@example.com', attributes: { department: 'R&D', employeeNumber: '42' } });

    const made = await t.app.inject({
      method: 'POST',
      url: directory,
      headers: bearer(token),
      payload: { userName: 'made-in-directory@example.com', title: 'Chief' },
    });
    const id = made.json().user.id;
    expect((await scim(t, env.token, 'GET', `/Users/${id}`)).body).toMatchObject({ userName: 'made-in-directory@example.com', title: 'Chief', active: true });

    expect((await scim(t, env.token, 'DELETE', `/Users/${created.id}`)).status).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: `${directory}/${created.id}`, headers: bearer(token) })).statusCode).toBe(404);
    expect((await scim(t, env.token, 'GET', `/Users/${created.id}`)).status).toBe(404);
  });

  it("emits the directory's events with the provisioning token as the actor, and nothing for a change that changes nothing", async () => {
    const user = (await scim(t, env.token, 'POST', '/Users', { userName: 'events@example.com' })).body;
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: 'displayName', value: 'Evie' }));
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: 'displayName', value: 'Evie' }));
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: 'active', value: 'True' }));
    await scim(t, env.token, 'DELETE', `/Users/${user.id}`);
    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.subject?.id === user.id);
    expect(events.map((e) => e.type)).toEqual([
      'directory.user.created',
      'directory.user.updated',
      'directory.user.deactivated',
      'directory.user.activated',
      'directory.user.deleted',
    ]);
    for (const event of events) expect(event.actor).toEqual({ type: 'provisioning_token', id: env.tokenId });
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { resourceId: user.id });
    expect(audit.map((a) => [a.action, a.actor.type])).toEqual([
      ['directory.user.create', 'provisioning_token'],
      ['directory.user.update', 'provisioning_token'],
      ['directory.user.deactivate', 'provisioning_token'],
      ['directory.user.activate', 'provisioning_token'],
      ['directory.user.delete', 'provisioning_token'],
    ]);
  });

  it('keeps emails unique across users, ignoring case, with 409 uniqueness', async () => {
    await scim(t, env.token, 'POST', '/Users', { userName: 'first@example.com', emails: [{ value: 'shared@example.com', type: 'work' }] });
    const second = await scim(t, env.token, 'POST', '/Users', { userName: 'second@example.com', emails: [{ value: 'SHARED@example.com', type: 'work' }] });
    expect(second.body).toMatchObject({ status: '409', scimType: 'uniqueness', detail: expect.stringMatching(/email/) });
  });

  it('keeps userName unique under concurrent creates: one 201, the others 409 uniqueness', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => scim(t, env.token, 'POST', '/Users', { userName: i % 2 ? 'RACE@example.com' : 'race@example.com' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.scimType).toBe('uniqueness');
  });
});
