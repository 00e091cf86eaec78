// PATCH exactly as Okta sends it: pathless replace to deactivate, group rename with `id` in the value, member add
// without `type`, removal by `members[value eq "…"]`, `replace members` as a full replacement and with [] (Push now of
// an empty group); and membership takes effect on AuthZEN decisions at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GROUP, patch, scim, scimEnvironment, USER, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
const ids: string[] = [];
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t);
  for (let i = 0; i < 3; i++) ids.push((await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: `okta${i}@example.com` })).body.id);
});
afterAll(() => t.close());

const members = async (id: string) =>
  ((await scim(t, env.token, 'GET', `/Groups/${id}`)).body.members ?? []).map((m: { value: string }) => m.value).sort() as string[];

describe('Okta PATCH', () => {
  it('deactivates a user with a pathless replace', async () => {
    const res = await scim(t, env.token, 'PATCH', `/Users/${ids[0]}`, patch({ op: 'replace', value: { active: false } }));
    expect(res).toMatchObject({ status: 200, body: { id: ids[0], active: false } });
    await scim(t, env.token, 'PATCH', `/Users/${ids[0]}`, patch({ op: 'replace', value: { active: true } }));
  });

  it('renames a group with a pathless replace that includes the id, and manages members', async () => {
    const { id } = (await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Okta group', members: [] })).body;
    const renamed = await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'replace', value: { id, displayName: 'Okta group renamed' } }));
    expect(renamed).toMatchObject({ status: 200, body: { id, displayName: 'Okta group renamed' } });

    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'add', path: 'members', value: ids.map((value) => ({ value, display: 'x' })) }));
    expect(await members(id)).toEqual([...ids].sort());
    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'remove', path: `members[value eq "${ids[0]}"]` }));
    expect(await members(id)).toEqual([ids[1], ids[2]].sort());
    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'replace', path: 'members', value: [{ value: ids[0] }] }));
    expect(await members(id)).toEqual([ids[0]]);
    const emptied = await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'replace', path: 'members', value: [] }));
    expect(emptied.status).toBe(200);
    expect(await members(id)).toEqual([]);
  });

  it('gives a group member its role at once, and takes it away at once', async () => {
    const token = await t.token();
    const rbac = `${env.base}/rbac`;
    const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    expect((await call('POST', `${rbac}/resource-types`, { key: 'doc', actions: [{ name: 'read' }] })).statusCode).toBe(201);
    expect((await call('PUT', `${rbac}/resources/doc/d1`, { attributes: {} })).statusCode).toBeLessThan(300);
    expect((await call('POST', `${rbac}/roles`, { key: 'reader', permissions: [{ permission: 'doc:read' }] })).statusCode).toBe(201);
    const { id } = (await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Readers' })).body;
    expect((await call('POST', `${rbac}/assignments`, { role: 'reader', groupId: id })).statusCode).toBe(201);
    const secret = (await call('POST', `${env.base}/api-secrets`, { name: 'pdp', purposes: ['authzen'] })).json().secret;
    const decide = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/access/v1/evaluation',
          headers: { authorization: `Bearer ${secret}` },
          payload: { subject: { type: 'user', id: ids[1] }, action: { name: 'read' }, resource: { type: 'doc', id: 'd1' } },
        })
      ).json().decision;
    expect(await decide()).toBe(false);
    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'add', path: 'members', value: [{ value: ids[1] }] }));
    expect(await decide()).toBe(true);
    await scim(t, env.token, 'PATCH', `/Groups/${id}`, patch({ op: 'remove', path: `members[value eq "${ids[1]}"]` }));
    expect(await decide()).toBe(false);
  });
});
