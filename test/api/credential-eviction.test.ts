// Verified tokens are cached; whatever removes or narrows a principal (cascades included) evicts them, on this
// instance before the change answers, and on every other instance through NOTIFY.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import type { App } from '../../api/types.ts';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let admin: string;
let second: App; // another API instance on the same database
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  second = await buildApp({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey });
});
afterAll(async () => {
  await second.close();
  await t.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (token: string, method: Method, url: string, payload?: object, app: App = t.app) =>
  app.inject({ method, url: `/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const tenants = async (token: string, app: App = t.app) => (await call(token, 'GET', '/tenants', undefined, app)).statusCode;

/** A tenant with a project (two environments), and a user of its production environment with a PAT, cached on both instances. */
async function userInNewTenant() {
  const tenant = (await call(admin, 'POST', '/tenants', { name: `Holding ${crypto.randomUUID().slice(0, 6)}` })).json().tenant;
  const project = (await call(admin, 'POST', `/tenants/${tenant.id}/projects`, { name: 'App' })).json().project;
  const environmentId = project.environments[1].id as string; // production: not the default
  const user = await userPrincipal(t, { environmentId, organizationId: t.credentials.organizationId, scopes: ['tenants:read'] });
  for (const app of [t.app, second]) expect(await tenants(user.token, app)).toBe(200);
  return { tenantId: tenant.id as string, projectId: project.id as string, environmentId, token: user.token };
}

describe('credential eviction', () => {
  it('refuses the PAT of a user removed with its tenant on the very next request, on every instance', async () => {
    const { tenantId, token } = await userInNewTenant();
    expect((await call(admin, 'DELETE', `/tenants/${tenantId}`)).statusCode).toBe(200);
    const next = await call(token, 'GET', '/tenants');
    expect(next.statusCode).toBe(401);
    expect(next.json().code).toBe('auth.invalid_token');
    await expect.poll(() => tenants(token, second), { timeout: 2000, interval: 20 }).toBe(401);
  });

  it('refuses the PAT of a user removed with its environment, or with its project', async () => {
    const inEnvironment = await userInNewTenant();
    const url = `/tenants/${inEnvironment.tenantId}/projects/${inEnvironment.projectId}/environments/${inEnvironment.environmentId}`;
    expect((await call(admin, 'DELETE', url)).statusCode).toBe(200);
    expect(await tenants(inEnvironment.token)).toBe(401);

    const inProject = await userInNewTenant();
    expect((await call(admin, 'DELETE', `/tenants/${inProject.tenantId}/projects/${inProject.projectId}`)).statusCode).toBe(200);
    expect(await tenants(inProject.token)).toBe(401);
  });

  it('refuses the tokens of the service accounts of a deleted organization on the very next request', async () => {
    const other = await otherOrganization(t);
    expect(await tenants(other.token)).toBe(200);
    expect((await call(other.token, 'DELETE', `/organizations/${other.organizationId}`)).statusCode).toBe(200);
    expect(await tenants(other.token)).toBe(401);
  });

  it('does not revive the tokens of a disabled service account when it is enabled again', async () => {
    const org = t.credentials.organizationId;
    const created = (await call(admin, 'POST', `/organizations/${org}/service-accounts`, { name: 'revived', scopes: ['tenants:read'] })).json();
    const url = `/organizations/${org}/service-accounts/${created.serviceAccount.id}`;
    const before = await clientCredentialsToken(t.app, created.serviceAccount.clientId, created.clientSecret);
    expect(await tenants(before)).toBe(200);
    expect((await call(admin, 'PATCH', url, { active: false })).statusCode).toBe(200);
    expect(await tenants(before)).toBe(401);
    expect((await call(admin, 'PATCH', url, { active: true })).json().serviceAccount.active).toBe(true);
    const stale = await call(before, 'GET', '/tenants');
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toMatch(/issued before its service account was disabled/);
    const after = await clientCredentialsToken(t.app, created.serviceAccount.clientId, created.clientSecret);
    expect(await tenants(after)).toBe(200);
    expect(await tenants(before, second)).toBe(401);
  });
});
