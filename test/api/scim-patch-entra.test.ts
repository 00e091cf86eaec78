// PATCH exactly as Entra ID sends it (its validator and its default attribute mappings): capitalised ops, the
// string "False", value-filtered paths created when absent, pathless replace with dotted and URN keys, and the
// enterprise manager set, changed and removed by id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../helpers/app.ts';
import { ENTERPRISE, entraUser, patch, scim, startScimApp, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const create = async (userName: string) => {
  const res = await scim(t, env.token, 'POST', '/Users', entraUser(userName));
  expect(res.status).toBe(201);
  return res.body as { id: string; userName: string };
};

describe('Entra ID PATCH', () => {
  it('tests the connection with a filter on a random userName: 200 and an empty list', async () => {
    const res = await scim(t, env.token, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${crypto.randomUUID()}"`)}`);
    expect(res).toMatchObject({ status: 200, body: { totalResults: 0, Resources: [] } });
  });

  it('applies capitalised ops with "False", value-filtered paths (created when absent) and the enterprise attributes', async () => {
    const user = await create('entra.one@example.com');
    const res = await scim(
      t,
      env.token,
      'PATCH',
      `/Users/${user.id}`,
      patch(
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'entra.renamed@example.com' },
        { op: 'Add', path: 'addresses[type eq "work"].locality', value: 'Berlin' },
        { op: 'Add', path: 'addresses[type eq "work"].country', value: 'DE' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+49 30 1234' },
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+49 30 5678' },
        { op: 'Replace', path: 'title', value: 'Engineer' },
        { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: '000123' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Platform' },
        { op: 'Replace', path: 'name.givenName', value: 'Entra' },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      active: false,
      title: 'Engineer',
      name: { givenName: 'Entra', familyName: 'User', formatted: 'Test User' },
      emails: [{ value: 'entra.renamed@example.com', type: 'work', primary: true }],
      addresses: [{ type: 'work', locality: 'Berlin', country: 'DE', primary: false }],
      phoneNumbers: [
        { value: '+49 30 1234', type: 'mobile', primary: false },
        { value: '+49 30 5678', type: 'work', primary: false },
      ],
      [ENTERPRISE]: { employeeNumber: '000123', department: 'Platform' },
    });
    // The enterprise extension is the directory user's attributes, where conditions read it.
    const directory = await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${user.id}`, headers: bearer(await t.token()) });
    expect(directory.json().user.attributes).toEqual({ employeeNumber: '000123', department: 'Platform' });
    expect(directory.json().user.emails).toEqual([{ id: expect.any(String), value: 'entra.renamed@example.com', type: 'work' }]);
  });

  it('applies a pathless Replace whose keys are dotted and URN paths (aadOptscim062020)', async () => {
    const user = await create('entra.two@example.com');
    const res = await scim(
      t,
      env.token,
      'PATCH',
      `/Users/${user.id}`,
      patch({
        op: 'replace',
        value: {
          'name.givenName': 'Dotted',
          'name.familyName': 'Path',
          [`${ENTERPRISE}:employeeNumber`]: '77',
          'urn:ietf:params:scim:schemas:core:2.0:User:displayName': 'By URN',
          active: false,
        },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: { givenName: 'Dotted', familyName: 'Path' },
      displayName: 'By URN',
      active: false,
      [ENTERPRISE]: { employeeNumber: '77' },
    });
  });

  it('sets, changes and removes the manager by a bare id and returns it as {value, $ref, displayName}', async () => {
    const user = await create('report@example.com');
    const first = await create('manager.one@example.com');
    const second = await create('manager.two@example.com');
    const set = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Add', path: `${ENTERPRISE}:manager`, value: first.id }));
    expect(set.body[ENTERPRISE].manager).toEqual({ value: first.id, $ref: `http://localhost:80/v1/scim/v2/Users/${first.id}`, displayName: 'Test User' });
    const changed = await scim(
      t,
      env.token,
      'PATCH',
      `/Users/${user.id}`,
      patch({ op: 'Replace', path: `${ENTERPRISE}:manager`, value: { value: second.id } }),
    );
    expect(changed.body[ENTERPRISE].manager.value).toBe(second.id);
    const directory = await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${user.id}`, headers: bearer(await t.token()) });
    expect(directory.json().user.attributes).toEqual({ manager: second.id });
    const removed = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: `${ENTERPRISE}:manager`, value: '' }));
    expect(removed.status).toBe(200);
    expect(removed.body[ENTERPRISE]).toBeUndefined();
    expect(removed.body.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User']);
  });

  it('removes an attribute by path and a value by filter', async () => {
    const user = await create('remove@example.com');
    await scim(t, env.token, 'PATCH', `/Users/${user.id}`, patch({ op: 'Add', path: 'emails[type eq "home"].value', value: 'home@example.com' }));
    const res = await scim(
      t,
      env.token,
      'PATCH',
      `/Users/${user.id}`,
      patch({ op: 'Remove', path: 'displayName' }, { op: 'Remove', path: 'emails[type eq "home"]' }),
    );
    expect(res.body.displayName).toBeUndefined();
    expect(res.body.emails).toEqual([{ value: 'remove@example.com', type: 'work', primary: true }]);
  });

  it('refuses a malformed PatchOp, a bad path and a read-only path with the SCIM error types', async () => {
    const user = await create('bad.patch@example.com');
    const cases: [unknown, number, string][] = [
      [{ schemas: [] }, 400, 'invalidSyntax'],
      [patch({ op: 'Move', path: 'title', value: 'x' }), 400, 'invalidSyntax'],
      [patch({ op: 'Replace', path: 'emails[type eq "work"', value: 'x' }), 400, 'invalidPath'],
      [patch({ op: 'Replace', path: 'emails[type eq].value', value: 'x' }), 400, 'invalidFilter'],
      [patch({ op: 'Replace', path: 'id', value: 'x' }), 400, 'mutability'],
      [patch({ op: 'Remove' }), 400, 'noTarget'],
      [patch({ op: 'Replace', path: 'active', value: 'perhaps' }), 400, 'invalidValue'],
      [patch({ op: 'Replace', path: 'phoneNumbers[value pr].type', value: 'x' }), 400, 'noTarget'],
    ];
    for (const [body, status, scimType] of cases) {
      const res = await scim(t, env.token, 'PATCH', `/Users/${user.id}`, body);
      expect([res.status, res.body.scimType], JSON.stringify(body)).toEqual([status, scimType]);
    }
  });
});
