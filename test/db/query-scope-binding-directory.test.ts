// The by-id statements of the directory, provisioning, identity and organization families name their scope: given
// another environment or organization than the row's, a read finds nothing and a write changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from 'slonik';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { createDirectoryUserQueries } from '../../db/directory/users/queries.ts';
import { createGroupQueries } from '../../db/directory/groups/queries.ts';
import { createProvisioningTokenQueries } from '../../db/provisioning/provisioning-tokens/queries.ts';
import { createServiceAccountQueries } from '../../db/identity/service-accounts/queries.ts';
import { createUserQueries } from '../../db/identity/users/queries.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let mine: string;
let theirs: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
  mine = (await newEnvironments(t, token)).environmentIds[0]!;
  theirs = (await newEnvironments(t, token)).environmentIds[0]!;
});
afterAll(() => t.close());

const post = async (path: string, payload: object) => {
  const res = await t.app.inject({ method: 'POST', url: `/v1/tenants/${tenantId}/environments/${mine}/${path}`, headers: bearer(token), payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Record<string, unknown>;
};

describe('queries bound to their scope', () => {
  it('a directory user or group of one environment is neither read, changed nor deleted through another', async () => {
    const { user } = (await post('directory/users', { userName: 'scoped@example.com' })) as { user: { id: string } };
    const { group } = (await post('directory/groups', { name: 'Scoped' })) as { group: { id: string } };
    const users = createDirectoryUserQueries(t.pool, theirs);
    const groups = createGroupQueries(t.pool, theirs);
    await expect(users.updateUser(user.id, { displayName: 'Taken' })).rejects.toBeInstanceOf(NotFoundError);
    await users.deleteUser(user.id);
    await groups.deleteGroup(group.id);
    await expect(groups.updateGroup(group.id, { name: 'Taken' })).rejects.toBeInstanceOf(NotFoundError);
    expect([await users.findUser(user.id), await groups.findGroup(group.id)]).toEqual([null, null]);
    expect(await createUserQueries(t.pool).findUserById(theirs, user.id)).toBeNull();

    // Through its own environment, the same statements reach it, untouched until now.
    const own = { users: createDirectoryUserQueries(t.pool, mine), groups: createGroupQueries(t.pool, mine) };
    expect(await own.users.findUser(user.id)).toMatchObject({ id: user.id, userName: 'scoped@example.com', displayName: null });
    expect(await own.groups.findGroup(group.id)).toMatchObject({ id: group.id, name: 'Scoped' });
    expect(await createUserQueries(t.pool).findUserById(mine, user.id)).toMatchObject({ id: user.id });
    expect(await own.users.updateUser(user.id, { displayName: 'Mine' })).toMatchObject({ id: user.id, displayName: 'Mine' });
    expect(await own.groups.updateGroup(group.id, { name: 'Mine' })).toMatchObject({ id: group.id, name: 'Mine' });
    await own.users.deleteUser(user.id);
    await own.groups.deleteGroup(group.id);
    expect([await own.users.findUser(user.id), await own.groups.findGroup(group.id)]).toEqual([null, null]);
  });

  it("a provisioning token is not revoked or deleted through another environment's queries", async () => {
    const { provisioningToken } = (await post('provisioning-tokens', { name: 'Entra ID', kind: 'scim' })) as { provisioningToken: { id: string } };
    const other = createProvisioningTokenQueries(t.pool, theirs);
    await expect(other.revoke(provisioningToken.id)).rejects.toBeInstanceOf(NotFoundError);
    await other.delete(provisioningToken.id);
    expect(await other.find(provisioningToken.id)).toBeNull();
    const own = createProvisioningTokenQueries(t.pool, mine);
    expect(await own.find(provisioningToken.id)).toMatchObject({ id: provisioningToken.id, active: true });
    expect(await own.revoke(provisioningToken.id)).toMatchObject({ id: provisioningToken.id, active: false });
  });

  it("a service account is not read, changed or deleted through another organization's id", async () => {
    const other = await otherOrganization(t);
    const accounts = createServiceAccountQueries(t.pool);
    const id = other.serviceAccount.id;
    const organizationId = t.credentials.organizationId;
    expect(await accounts.findServiceAccountById(organizationId, id)).toBeNull();
    await expect(accounts.updateServiceAccountById(organizationId, id, { name: 'Taken' })).rejects.toBeInstanceOf(NotFoundError);
    await accounts.deleteServiceAccountById(organizationId, id);
    expect(await accounts.findServiceAccountById(other.organizationId, id)).toMatchObject({ id, active: true });
  });
});
