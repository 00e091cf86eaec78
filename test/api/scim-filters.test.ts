// The SCIM filter grammar over Users and Groups (RFC 7644 §3.4.2.2): every operator, and/or/not, grouping, value
// filters (including Entra's `emails[type eq "work"].value eq`), enterprise URN paths, meta dates; 400 invalidFilter
// for anything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENTERPRISE, GROUP, scim, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
let since: string;
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t);
  const user = (userName: string, extra: object) => scim(t, env.token, 'POST', '/Users', { userName, ...extra });
  await user('alice@example.com', {
    externalId: 'A-1',
    title: 'Engineer',
    name: { givenName: 'Alice', familyName: 'Archer' },
    emails: [
      { value: 'alice@work.example', type: 'work' },
      { value: 'alice@home.example', type: 'home' },
    ],
    [ENTERPRISE]: { employeeNumber: '100', department: 'Platform' },
  });
  since = new Date().toISOString();
  await user('bob@example.com', { externalId: 'B-2', title: 'Manager', active: false, emails: [{ value: 'bob@home.example', type: 'home' }] });
  await user('carol@example.org', { externalId: 'C-3', emails: [{ value: 'carol@work.example', type: 'work' }], [ENTERPRISE]: { department: 'Sales' } });
  await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Platform Team' });
  await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Sales Team' });
});
afterAll(() => t.close());

const names = async (filter: string) => {
  const res = await scim(t, env.token, 'GET', `/Users?filter=${encodeURIComponent(filter)}&attributes=userName`);
  expect(res.status, `${filter}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.Resources.map((u: { userName: string }) => u.userName.split('@')[0]).sort();
};

describe('filters', () => {
  it.each([
    ['userName eq "ALICE@example.com"', ['alice']],
    ['externalId eq "B-2"', ['bob']],
    ['externalId eq "b-2"', []],
    ['userName ne "alice@example.com"', ['bob', 'carol']],
    ['userName co "EXAMPLE.ORG"', ['carol']],
    ['userName sw "b"', ['bob']],
    ['userName ew ".com"', ['alice', 'bob']],
    ['userName gt "b"', ['bob', 'carol']],
    ['userName le "bob@example.com"', ['alice', 'bob']],
    ['title pr', ['alice', 'bob']],
    ['not (title pr)', ['carol']],
    ['active eq false', ['bob']],
    ['title eq "Engineer" or title eq "Manager"', ['alice', 'bob']],
    ['(title eq "Engineer" or active eq false) and externalId eq "A-1"', ['alice']],
    ['name.givenName eq "alice"', ['alice']],
    ['emails[type eq "work"].value eq "ALICE@work.example"', ['alice']],
    ['emails[type eq "work"].value eq "alice@home.example"', []],
    ['emails[type eq "home" and value ew "home.example"]', ['alice', 'bob']],
    ['emails.value eq "carol@work.example"', ['carol']],
    ['emails co "home"', ['alice', 'bob']],
    [`${ENTERPRISE}:department eq "platform"`, ['alice']],
    [`${ENTERPRISE}:employeeNumber pr`, ['alice']],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "carol@example.org"', ['carol']],
    [`meta.created gt "${'SINCE'}"`, ['bob', 'carol']],
  ])('%s', async (filter, expected) => {
    expect(await names(filter.replace('SINCE', since))).toEqual(expected);
  });

  it('filters Groups by displayName case-insensitively and by members', async () => {
    const res = await scim(t, env.token, 'GET', `/Groups?filter=${encodeURIComponent('displayName sw "platform"')}`);
    expect(res.body.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(['Platform Team']);
    const none = await scim(t, env.token, 'GET', `/Groups?filter=${encodeURIComponent(`members[value eq "${crypto.randomUUID()}"]`)}`);
    expect(none.body.totalResults).toBe(0);
  });

  it.each(['userName eq', 'userName xx "a"', 'nosuch eq "a"', 'active eq "maybe"', 'meta.created gt "yesterday"', 'emails[type eq "work"'])(
    'answers %j with 400 invalidFilter',
    async (filter) => {
      const res = await scim(t, env.token, 'GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: '400', scimType: 'invalidFilter', detail: expect.any(String) });
    },
  );
});
