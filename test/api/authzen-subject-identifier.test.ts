// AuthZEN subjects are named by one kind of identifier per environment (its settings, default userName), never by
// a fallback to another kind: an HRIS/SCIM externalId equal to another user's userName takes nothing over.
// Conditions see both ids (subject.id the directory's, subject.identifier the one requests send), and a stored
// `email` attribute is not shadowed by a user without a directory email.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { tenantEvents } from '../helpers/events.ts';

let t: TestApp;
let token: string;
let pdp: Pdp;

const SEED = {
  users: [
    { userName: 'alice', externalId: 'idp-alice', emails: ['alice@example.com'] },
    // Provisioned later by an HRIS or SCIM client: its externalId is alice's userName, its userName is alice's externalId.
    { userName: 'idp-alice', externalId: 'alice', emails: ['mallory@example.com'] },
    { userName: 'noexternal', emails: ['noexternal@example.com'] },
    { userName: 'stored-email', attributes: { email: 'stored@example.com' } },
  ],
  resourceTypes: [{ key: 'document', actions: ['read', 'delete', 'mail'], storedInstancesOnly: false }],
  roles: [
    { key: 'viewer', permissions: [{ type: 'document', action: 'read' }] },
    {
      key: 'owner',
      permissions: [{ type: 'document', action: 'delete', condition: 'subject.identifier == resource.properties.owner && size(subject.id) == 36' }],
    },
    { key: 'mailer', permissions: [{ type: 'document', action: 'mail', condition: 'subject.properties.email == "stored@example.com"' }] },
  ],
  assignments: [
    { role: 'viewer', user: 'alice' },
    { role: 'viewer', user: 'noexternal' },
    { role: 'owner', user: 'alice' },
    { role: 'mailer', user: 'stored-email' },
  ],
};

const settingsUrl = () => `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/authzen-settings`;
const save = async (subjectIdentifier: unknown) => {
  const res = await t.app.inject({ method: 'PUT', url: settingsUrl(), headers: bearer(token), payload: { subjectIdentifier } });
  return { status: res.statusCode, body: res.json() };
};
const decide = async (id: string, action = 'read', resource: Record<string, unknown> = { type: 'document', id: 'doc-1' }) =>
  (await pdp.post('evaluation', { subject: { type: 'user', id }, action: { name: action }, resource })).body!.decision;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  pdp = await authzenEnvironment(t, SEED);
});
afterAll(() => t?.close());

describe('AuthZEN subject identifiers', () => {
  it('names users by userName by default, and never by another kind: an externalId equal to a userName takes nothing over', async () => {
    const res = await t.app.inject({ method: 'GET', url: settingsUrl(), headers: bearer(token) });
    expect(res.json()).toEqual({ settings: { environmentId: pdp.environmentId, subjectIdentifier: 'userName' } });
    expect(await decide('alice')).toBe(true);
    expect(await decide('ALICE')).toBe(true);
    expect(await decide('idp-alice')).toBe(false); // the other user, by its userName; alice's externalId names nobody
    expect(await decide(pdp.ids.users.alice!)).toBe(false); // the directory id is another kind
    expect(await decide('alice@example.com')).toBe(false);
    const search = await pdp.post('search/subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } });
    // Created in one transaction: no creation order between them.
    expect(search.body!.results).toHaveLength(2);
    expect(search.body!.results).toEqual(
      expect.arrayContaining([
        { type: 'user', id: 'alice' },
        { type: 'user', id: 'noexternal' },
      ]),
    );
  });

  it('decides by the kind saved in the environment settings only, with an audited event', async () => {
    const saved = async () =>
      (await tenantEvents(t, pdp.tenantId, { environmentId: pdp.environmentId })).filter((e) => e.type === 'environment.authzen_settings.saved');
    const earlier = (await saved()).length;
    await save('userName');
    expect(await save('externalId')).toEqual({ status: 200, body: { settings: { environmentId: pdp.environmentId, subjectIdentifier: 'externalId' } } });
    expect(await decide('idp-alice')).toBe(true);
    expect(await decide('alice')).toBe(false); // the provisioned user's externalId: it holds nothing
    // A user without an externalId cannot be named, so search leaves it out.
    const search = await pdp.post('search/subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } });
    expect(search.body!.results).toEqual([{ type: 'user', id: 'idp-alice' }]);

    expect((await save('email')).status).toBe(200);
    expect(await decide('Alice@Example.com')).toBe(true);
    expect(await decide('alice')).toBe(false);
    expect((await save('id')).status).toBe(200);
    expect(await decide(pdp.ids.users.alice!)).toBe(true);
    expect(await decide('alice')).toBe(false);

    expect(await save('uuid')).toMatchObject({ status: 400, body: { details: [{ path: 'body.subjectIdentifier' }] } });
    expect((await saved()).slice(earlier + 1).map((e) => e.data)).toEqual([
      expect.objectContaining({ subjectIdentifier: 'externalId', previous: 'userName' }),
      expect.objectContaining({ subjectIdentifier: 'email', previous: 'externalId' }),
      expect.objectContaining({ subjectIdentifier: 'id', previous: 'email' }),
    ]);
    expect((await save('userName')).status).toBe(200);
  });

  it('conditions see subject.identifier (the id requests send, as stored) and subject.id (the directory id)', async () => {
    expect(await decide('ALICE', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'alice' } })).toBe(true);
    expect(await decide('alice', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'idp-alice' } })).toBe(false);
    expect((await save('externalId')).status).toBe(200);
    expect(await decide('idp-alice', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'idp-alice' } })).toBe(true);
    expect((await save('userName')).status).toBe(200);
  });

  it('a stored email attribute is not shadowed by a user without a directory email', async () => {
    expect(await decide('stored-email', 'mail')).toBe(true);
  });
});
