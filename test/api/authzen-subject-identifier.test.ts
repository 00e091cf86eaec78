// AuthZEN subjects are named by the kind of identifier of the environment's settings: by default `any` (id,
// externalId or userName, as the interop scenarios do), which the directory keeps unambiguous by refusing an
// externalId equal to another user's userName (409); data saved before that names nobody. An explicit kind is
// looked up alone: an HRIS/SCIM externalId equal to another user's userName takes nothing over.
// Conditions see both ids (subject.id the directory's, subject.identifier the one requests send), and a stored
// `email` attribute is not shadowed by a user without a directory email.
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { tenantEvents } from '../helpers/events.ts';

let t: TestApp;
let token: string;
let pdp: Pdp;

const SEED = {
  users: [
    { userName: 'alice', externalId: 'idp-alice', emails: ['alice@example.com'] },
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
const readers = async () =>
  (await pdp.post('search/subject', { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } })).body!.results;
// The takeover of issue 16: provisioned by an HRIS or SCIM client, its externalId is alice's userName, its userName alice's externalId.
const MALLORY = { userName: 'idp-alice', externalId: 'alice', emails: [{ value: 'mallory@example.com' }] };

/** Mallory as saved before 0026 refused it (the trigger held off for this one insert). */
async function saveMalloryAsBefore() {
  await t.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`ALTER TABLE users DISABLE TRIGGER users_identifiers_unique`);
    pdp.ids.users.mallory = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO users (environment_id, user_name, external_id) VALUES (${pdp.environmentId}, ${MALLORY.userName}, ${MALLORY.externalId}) RETURNING id`);
    await tx.query(sql.unsafe`ALTER TABLE users ENABLE TRIGGER users_identifiers_unique`);
  });
}

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
// An environment of its own for every test: settings and data one test saves never reach another.
beforeEach(async () => {
  pdp = await authzenEnvironment(t, SEED);
});
afterAll(() => t?.close());

describe('AuthZEN subject identifiers', () => {
  it('names users by id, externalId or userName by default (`any`), and search answers with the externalId, else the userName', async () => {
    const res = await t.app.inject({ method: 'GET', url: settingsUrl(), headers: bearer(token) });
    expect(res.json()).toEqual({ settings: { environmentId: pdp.environmentId, subjectIdentifier: 'any', resourceTypeEngines: {} } });
    for (const id of ['alice', 'ALICE', 'idp-alice', pdp.ids.users.alice!]) expect(await decide(id), id).toBe(true);
    expect(await decide('IDP-ALICE')).toBe(false); // an externalId compares exactly
    expect(await decide('alice@example.com')).toBe(false); // emails are another kind
    expect(await readers()).toEqual(
      expect.arrayContaining([
        { type: 'user', id: 'idp-alice' },
        { type: 'user', id: 'noexternal' },
      ]),
    );
    expect(await readers()).toHaveLength(2);
  });

  it('refuses the takeover write under `any` (409 naming the value), and data saved before it names nobody', async () => {
    const users = `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/directory/users`;
    const res = await t.app.inject({ method: 'POST', url: users, headers: bearer(token), payload: MALLORY });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'Conflict: body.externalId alice is already the userName or id of another user in this environment.',
      code: 'directory.identifier_taken',
      requestId: expect.any(String),
      details: [{ path: 'body.externalId', message: 'alice is already the userName or id of another user in this environment' }],
    });
    expect(await decide('alice')).toBe(true);

    await saveMalloryAsBefore();
    const reason = async (id: string) =>
      (
        await pdp.post('evaluation', {
          subject: { type: 'user', id },
          action: { name: 'read' },
          resource: { type: 'document', id: 'doc-1' },
          options: { explain: true },
        })
      ).body as { context: { reason: { code?: string } } };
    // Written behind the service's back: the compiled model is dropped when the notification arrives.
    await expect.poll(async () => (await reason('alice')).context.reason.code, { timeout: 5000, interval: 20 }).toBe('unknown_subject');
    expect(await reason('idp-alice')).toMatchObject({ decision: false, context: { reason: { code: 'unknown_subject' } } });
    expect(await decide(pdp.ids.users.alice!)).toBe(true); // alice's id is hers alone
  });

  it('names users by userName only under `userName`: an externalId equal to a userName takes nothing over', async () => {
    await saveMalloryAsBefore();
    expect((await save('userName')).status).toBe(200);
    expect(await decide('alice')).toBe(true);
    expect(await decide('ALICE')).toBe(true);
    expect(await decide('idp-alice')).toBe(false); // mallory, by its userName; alice's externalId names nobody
    expect(await decide(pdp.ids.users.alice!)).toBe(false); // the directory id is another kind
    expect(await decide('alice@example.com')).toBe(false);
    // Created in one transaction: no creation order between them.
    expect(await readers()).toHaveLength(2);
    expect(await readers()).toEqual(
      expect.arrayContaining([
        { type: 'user', id: 'alice' },
        { type: 'user', id: 'noexternal' },
      ]),
    );
  });

  it('decides by the kind saved in the environment settings only, with an audited event', async () => {
    const saved = async () =>
      (await tenantEvents(t, pdp.tenantId, { environmentId: pdp.environmentId })).filter((e) => e.type === 'environment.authzen_settings.saved');
    await saveMalloryAsBefore();
    const earlier = (await saved()).length;
    await save('userName');
    expect(await save('externalId')).toEqual({
      status: 200,
      body: { settings: { environmentId: pdp.environmentId, subjectIdentifier: 'externalId', resourceTypeEngines: {} } },
    });
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
    expect((await save('userName')).status).toBe(200);
    expect(await decide('ALICE', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'alice' } })).toBe(true);
    expect(await decide('alice', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'idp-alice' } })).toBe(false);
    expect((await save('externalId')).status).toBe(200);
    expect(await decide('idp-alice', 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'idp-alice' } })).toBe(true);
    // Under `any`, the identifier is the externalId whichever id the request named the subject by.
    expect((await save('any')).status).toBe(200);
    expect(await decide(pdp.ids.users.alice!, 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'idp-alice' } })).toBe(true);
    expect(await decide(pdp.ids.users.alice!, 'delete', { type: 'document', id: 'doc-1', properties: { owner: 'alice' } })).toBe(false);
  });

  it('a stored email attribute is not shadowed by a user without a directory email', async () => {
    expect(await decide('stored-email', 'mail')).toBe(true);
  });
});
