import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  base = `/v1/organizations/${t.credentials.organizationId}/service-accounts`;
});
afterAll(() => t.close());

describe('service accounts', () => {
  it('creates one with a secret shown once, then lists, updates, rotates and deletes it', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: base,
      headers: bearer(admin),
      payload: { name: 'deployer', description: 'CI', scopes: ['tenants:write'] },
    });
    expect(created.statusCode).toBe(201);
    const { serviceAccount, clientSecret } = created.json();
    expect(serviceAccount).toEqual({
      id: expect.any(String),
      organizationId: t.credentials.organizationId,
      clientId: expect.stringMatching(/^sa_/),
      name: 'deployer',
      description: 'CI',
      lastUsedAt: null,
      scopes: ['tenants:write'],
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(clientSecret).toMatch(/^adsa_/);
    const list = await t.app.inject({ method: 'GET', url: base, headers: bearer(admin) });
    expect(list.json().total).toBe(2);
    expect(list.body).not.toContain(clientSecret);

    const updated = await t.app.inject({ method: 'PATCH', url: `${base}/${serviceAccount.id}`, headers: bearer(admin), payload: { scopes: ['tenants:read'] } });
    expect(updated.json().serviceAccount.scopes).toEqual(['tenants:read']);

    const rotated = (await t.app.inject({ method: 'POST', url: `${base}/${serviceAccount.id}/rotate-secret`, headers: bearer(admin) })).json();
    expect(rotated.clientSecret).not.toBe(clientSecret);
    await expect(clientCredentialsToken(t.app, serviceAccount.clientId, clientSecret)).rejects.toThrow(/401/);
    await expect(clientCredentialsToken(t.app, serviceAccount.clientId, rotated.clientSecret)).resolves.toEqual(expect.any(String));

    expect((await t.app.inject({ method: 'DELETE', url: `${base}/${serviceAccount.id}`, headers: bearer(admin) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `${base}/${serviceAccount.id}`, headers: bearer(admin) })).statusCode).toBe(404);
  });

  it('does not let a caller grant scopes it does not hold', async () => {
    const narrow = await t.token('service-accounts:write');
    const res = await t.app.inject({ method: 'POST', url: base, headers: bearer(narrow), payload: { name: 'x', scopes: ['*'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'service_account.scope_not_held', details: [{ path: 'body.scopes', message: expect.stringContaining('*') }] });
  });

  it('404s the service accounts of another organization', async () => {
    const other = await otherOrganization(t);
    expect((await t.app.inject({ method: 'GET', url: `/v1/organizations/${other.organizationId}/service-accounts`, headers: bearer(admin) })).statusCode).toBe(
      404,
    );
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/organizations/${t.credentials.organizationId}/service-accounts/${other.serviceAccount.id}`,
      headers: bearer(admin),
      payload: { active: false },
    });
    expect(res.statusCode).toBe(404);
  });
});
