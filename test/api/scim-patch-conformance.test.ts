// PATCH conformance (RFC 7644 §3.5.2) on the requests Entra ID and Okta send: the enterprise extension addressed by
// its URN as a whole (add merges, replace replaces, remove removes), unknown paths refused (invalidPath) and value
// filters matching nothing (noTarget), and `primary` kept on every multi-valued attribute, at most once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { ENTERPRISE, ERROR, entraUser, patch, scim, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const create = async (extra: Record<string, unknown> = {}) => {
  const res = await scim(t, env.token, 'POST', '/Users', entraUser(`p${crypto.randomUUID().slice(0, 8)}@example.com`, extra));
  expect(res.status).toBe(201);
  return res.body as { id: string; userName: string };
};
const patchUser = (id: string, ...operations: Record<string, unknown>[]) => scim(t, env.token, 'PATCH', `/Users/${id}`, patch(...operations));

describe('PATCH with the enterprise extension URN as the path', () => {
  it('adds (merging), replaces (the whole container) and removes the extension', async () => {
    const manager = await create();
    const user = await create({ [ENTERPRISE]: { employeeNumber: '701', department: 'Eng', manager: { value: manager.id } } });

    const added = await patchUser(user.id, { op: 'Add', path: ENTERPRISE, value: { department: 'Sales', costCenter: 'CC-1' } });
    expect(added.status).toBe(200);
    expect(added.body[ENTERPRISE]).toEqual({
      employeeNumber: '701',
      department: 'Sales',
      costCenter: 'CC-1',
      manager: { value: manager.id, $ref: expect.stringContaining(manager.id), displayName: 'Test User' },
    });

    const replaced = await patchUser(user.id, { op: 'replace', path: ENTERPRISE, value: { division: 'R&D' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body[ENTERPRISE]).toEqual({ division: 'R&D' });
    expect((await scim(t, env.token, 'GET', `/Users/${user.id}`)).body[ENTERPRISE]).toEqual({ division: 'R&D' });

    const removed = await patchUser(user.id, { op: 'Remove', path: ENTERPRISE });
    expect(removed.status).toBe(200);
    expect(removed.body[ENTERPRISE]).toBeUndefined();
    expect(removed.body.schemas).toEqual([USER]);
  });

  it('refuses a non-object value for the extension with 400 invalidValue', async () => {
    const user = await create();
    const res = await patchUser(user.id, { op: 'add', path: ENTERPRISE, value: 'Sales' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidValue', detail: expect.stringContaining(ENTERPRISE) });
  });
});

describe('PATCH paths that name nothing', () => {
  it.each([
    ['replace', 'nonexistentAttribute', 'x'],
    ['add', 'name.nickName', 'x'],
    ['replace', `${ENTERPRISE}:favouriteColour`, 'blue'],
    ['remove', 'urn:example:params:scim:schemas:extension:custom:2.0:User:badge', undefined],
    ['add', 'emails[type eq "work"].label', 'x'],
  ])('answers %s %s with 400 invalidPath and changes nothing', async (op, path, value) => {
    const user = await create();
    const before = await scim(t, env.token, 'GET', `/Users/${user.id}`);
    const res = await patchUser(user.id, { op, path, ...(value !== undefined && { value }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidPath', detail: expect.stringContaining(path) });
    expect((await scim(t, env.token, 'GET', `/Users/${user.id}`)).body).toEqual(before.body);
  });

  it('answers a value filter matching nothing on remove or replace with 400 noTarget', async () => {
    const user = await create();
    const remove = await patchUser(user.id, { op: 'remove', path: 'emails[type eq "home"]' });
    expect(remove.status).toBe(400);
    expect(remove.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'noTarget' });
    const replace = await patchUser(user.id, { op: 'replace', path: 'emails[value co "nowhere"]', value: { type: 'home' } });
    expect(replace.body).toMatchObject({ status: '400', scimType: 'noTarget' });
  });
});

describe('primary on multi-valued attributes', () => {
  const photo = (n: number, primary?: boolean) => ({ value: `https://photos.example.com/${n}.jpg`, type: 'photo', ...(primary !== undefined && { primary }) });

  it('keeps primary as sent on photos, ims, roles, entitlements and x509Certificates', async () => {
    const body = {
      photos: [photo(1), photo(2, true)],
      ims: [{ value: 'ada.skype', type: 'skype', primary: true }],
      roles: [{ value: 'admin', primary: true }, { value: 'auditor' }],
      entitlements: [{ value: 'pro', primary: true }],
      x509Certificates: [{ value: 'MIIDQzCCAqygAwIBAgICEAAw', primary: true }],
      phoneNumbers: [
        { value: '+1 555 0100', type: 'work' },
        { value: '+1 555 0101', type: 'mobile', primary: true },
      ],
    };
    const user = await create(body);
    const res = await scim(t, env.token, 'GET', `/Users/${user.id}`);
    expect(res.body.photos).toEqual([{ ...photo(1), primary: false }, photo(2, true)]);
    expect(res.body.ims).toEqual(body.ims);
    expect(res.body.roles).toEqual(body.roles);
    expect(res.body.entitlements).toEqual(body.entitlements);
    expect(res.body.x509Certificates).toEqual(body.x509Certificates);
    expect(res.body.phoneNumbers).toEqual([{ ...body.phoneNumbers[0], primary: false }, body.phoneNumbers[1]]);
  });

  it('refuses two primary values in a POST or PUT with 400 invalidValue naming the attribute', async () => {
    for (const name of ['emails', 'photos', 'roles']) {
      const res = await scim(t, env.token, 'POST', '/Users', {
        schemas: [USER],
        userName: `two${crypto.randomUUID().slice(0, 8)}@example.com`,
        [name]: [
          { value: 'a@example.com', primary: true },
          { value: 'b@example.com', primary: true },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ scimType: 'invalidValue', detail: expect.stringContaining(name) });
    }
  });

  it('lets the last primary set by a PATCH win (RFC 7644 §3.5.2), on a value-filtered path too', async () => {
    const user = await create({ roles: [{ value: 'admin', primary: true }] });
    const added = await patchUser(user.id, { op: 'add', path: 'roles', value: [{ value: 'owner', primary: true }] });
    expect(added.body.roles).toEqual([
      { value: 'admin', primary: false },
      { value: 'owner', primary: true },
    ]);
    await patchUser(user.id, { op: 'add', path: 'emails', value: [{ value: 'home@example.com', type: 'home' }] });
    const switched = await patchUser(user.id, { op: 'replace', path: 'emails[type eq "home"].primary', value: true });
    expect(switched.status).toBe(200);
    expect(switched.body.emails).toEqual([
      { value: expect.any(String), type: 'work', primary: false },
      { value: 'home@example.com', type: 'home', primary: true },
    ]);
    const photos = await patchUser(user.id, { op: 'add', path: 'photos', value: [photo(1, true)] }, { op: 'add', path: 'photos', value: [photo(2, true)] });
    expect(photos.body.photos).toEqual([{ ...photo(1), primary: false }, photo(2, true)]);
  });
});
