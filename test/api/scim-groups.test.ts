// SCIM Groups as Entra ID and Okta push them: unique displayName (409), the `displayName eq` query with
// `excludedAttributes=members`, Entra's member PATCHes (multi-member add with "$ref": null, legacy Remove with a
// value list), and membership changes that take effect on access decisions at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { entraUser, GROUP, patch, scim, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t);
  for (let i = 0; i < 4; i++) ids.push((await scim(t, env.token, 'POST', '/Users', entraUser(`member${i}@example.com`))).body.id);
});
afterAll(() => t.close());

const group = async (displayName: string, members: string[] = []) => {
  const res = await scim(t, env.token, 'POST', '/Groups', {
    schemas: [GROUP],
    displayName,
    externalId: `ext-${displayName}`,
    members: members.map((value) => ({ value })),
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; meta: { version: string } };
};
const members = async (id: string) =>
  ((await scim(t, env.token, 'GET', `/Groups/${id}`)).body.members ?? []).map((m: { value: string }) => m.value).sort() as string[];

describe('Groups', () => {
  it("creates a group with members, 409 on a duplicate displayName, found by Entra's query without members", async () => {
    const created = await group('Engineering', [ids[0]!]);
    expect(created).toEqual({
      schemas: [GROUP],
      id: expect.any(String),
      externalId: 'ext-Engineering',
      displayName: 'Engineering',
      members: [{ value: ids[0], display: 'Test User', $ref: `http://localhost:80/v1/scim/v2/Users/${ids[0]}`, type: 'User' }],
      meta: expect.objectContaining({ resourceType: 'Group', location: `http://localhost:80/v1/scim/v2/Groups/${created.id}` }),
    });
    const duplicate = await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'ENGINEERING' });
    expect(duplicate.body).toMatchObject({ status: '409', scimType: 'uniqueness' });

    const query = await scim(t, env.token, 'GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "engineering"')}`);
    expect(query.body.Resources).toEqual([
      { schemas: [GROUP], id: created.id, externalId: 'ext-Engineering', displayName: 'Engineering', meta: expect.any(Object) },
    ]);
    const none = await scim(t, env.token, 'GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`displayName eq "${crypto.randomUUID()}"`)}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    const single = await scim(t, env.token, 'GET', `/Groups/${created.id}?excludedAttributes=members`);
    expect(single.body.members).toBeUndefined();
  });

  it("applies Entra's member PATCHes: multi-member add with $ref null, legacy Remove with a value list removes only those", async () => {
    const { id } = await group('Entra members');
    const add = await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'Add', path: 'members', value: ids.map((value) => ({ $ref: null, value })) }));
    expect(add.status).toBe(200);
    expect(await members(id)).toEqual([...ids].sort());
    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'Remove', path: 'members', value: [{ value: ids[0] }, { value: ids[1] }] }));
    expect(await members(id)).toEqual([ids[2], ids[3]].sort());
    // A replace without members (a rename) never wipes them.
    const renamed = await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'Replace', path: 'displayName', value: 'Entra members 2' }));
    expect(renamed.body.displayName).toBe('Entra members 2');
    expect(await members(id)).toEqual([ids[2], ids[3]].sort());
  });

  it('refuses a member that is not a user of the environment with 400 invalidValue', async () => {
    const { id } = await group('Strangers');
    const other = await scimEnvironment(t);
    const stranger = (await scim(t, other.token, 'POST', '/Users', { userName: 'stranger@example.com' })).body.id;
    for (const value of [stranger, 'not-an-id']) {
      const res = await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'Add', path: 'members', value: [{ value }] }));
      expect(res.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    }
    expect(await members(id)).toEqual([]);
  });

  it('replaces with PUT, deletes, and emits directory group events with the token as actor', async () => {
    const { id } = await group('Put group', [ids[0]!]);
    const put = await scim(t, env.token, 'PUT', `/Groups/${id}`, { schemas: [GROUP], id, displayName: 'Put group renamed', members: [{ value: ids[1] }] });
    expect(put.body).toMatchObject({ displayName: 'Put group renamed', members: [{ value: ids[1] }] });
    expect(put.body.externalId).toBeUndefined();
    expect((await scim(t, env.token, 'DELETE', `/Groups/${id}`)).status).toBe(204);
    expect((await scim(t, env.token, 'GET', `/Groups/${id}`)).status).toBe(404);
    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter(
      (e) => e.subject?.id === id && e.type.startsWith('directory.group.'),
    );
    expect(events.map((e) => e.type)).toEqual([
      'directory.group.created',
      'directory.group.member_added',
      'directory.group.updated',
      'directory.group.member_added',
      'directory.group.member_removed',
      'directory.group.deleted',
    ]);
    for (const e of events) expect(e.actor).toEqual({ type: 'provisioning_token', id: env.tokenId });
  });

  it('is the directory group: visible through the directory API with its members', async () => {
    const { id } = await group('Directory view', [ids[2]!]);
    const token = await t.token();
    const res = await t.app.inject({ method: 'GET', url: `${env.base}/directory/groups/${id}/members`, headers: bearer(token) });
    expect(res.json().users.map((u: { id: string }) => u.id)).toEqual([ids[2]]);
  });
});
