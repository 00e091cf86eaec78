// Deactivating a user revokes the impersonation grants acting as it, in the deactivation's transaction (with the
// revoke's audit entry and event), whichever API deactivates it: reactivating the user does not revive them.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { EMPLOYEE, hris, patch, scim } from '../helpers/scim.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let env: string;
let userId: string;
let serviceAccount: { type: string; id: string };
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  serviceAccount = { type: 'service_account', id: decodeJwt(token).sub! };
  tenantId = t.credentials.tenantId;
});
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  env = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  const res = await call('POST', `${env}/directory/users`, { userName: 'ada@example.com' });
  expect(res.statusCode, res.body).toBe(201);
  userId = res.json().user.id;
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const userinfo = (auth: string) => t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(auth) });

async function issue() {
  const res = await call('POST', `${env}/impersonation/grants`, { userId, reason: 'Ticket #7' });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { grant: { id: string }; token: string };
  expect((await userinfo(body.token)).statusCode).toBe(200);
  return body;
}

async function expectRevokedBy(grantId: string, actor: { type: string; id: string }) {
  const grant = (await call('GET', `${env}/impersonation/grants/${grantId}`)).json().grant;
  expect(grant).toMatchObject({ status: 'revoked', revokedBy: actor, revokeReason: 'The user was deactivated.', revokedAt: expect.any(String) });
  const revoked = await tenantEvents(t, tenantId, { environmentId, type: 'impersonation.grant.revoked' });
  expect(revoked.map((e) => e.data.grant)).toEqual([grant]);
  const audit = await auditEntries(t, { tenantId }, { action: 'impersonation.grant.revoke', resourceId: grantId });
  expect(audit.filter((a) => a.resource.id === grantId).map((a) => a.actor)).toEqual([actor]);
}

describe('deactivating a user ends its impersonation grants for good', () => {
  it('through POST …/deactivate, then activate: the token stays refused and the grant is revoked, with audit and event', async () => {
    const { grant, token: impersonation } = await issue();
    expect((await call('POST', `${env}/directory/users/${userId}/deactivate`)).statusCode).toBe(200);
    expect((await call('POST', `${env}/directory/users/${userId}/activate`)).statusCode).toBe(200);
    expect((await userinfo(impersonation)).statusCode).toBe(401);
    await expectRevokedBy(grant.id, serviceAccount);
  });

  it('through PATCH { active: false } and back', async () => {
    const { grant, token: impersonation } = await issue();
    expect((await call('PATCH', `${env}/directory/users/${userId}`, { active: false })).statusCode).toBe(200);
    expect((await call('PATCH', `${env}/directory/users/${userId}`, { active: true })).statusCode).toBe(200);
    expect((await userinfo(impersonation)).statusCode).toBe(401);
    await expectRevokedBy(grant.id, serviceAccount);
  });

  it('through SCIM active false and back', async () => {
    const { grant, token: impersonation } = await issue();
    const res = await call('POST', `${env}/provisioning-tokens`, { name: 'IdP', kind: 'scim' });
    const { provisioningToken, token: scimToken } = res.json();
    expect((await scim(t, scimToken, 'PATCH', `/Users/${userId}`, patch({ op: 'replace', path: 'active', value: false }))).status).toBe(200);
    expect((await scim(t, scimToken, 'PATCH', `/Users/${userId}`, patch({ op: 'replace', path: 'active', value: true }))).status).toBe(200);
    expect((await userinfo(impersonation)).statusCode).toBe(401);
    await expectRevokedBy(grant.id, { type: 'provisioning_token', id: provisioningToken.id });
  });

  it('through an HRIS termination and rehire', async () => {
    const res = await call('POST', `${env}/provisioning-tokens`, { name: 'HR', kind: 'hris' });
    const { provisioningToken, token: hrisToken } = res.json();
    const employee = await hris(t, hrisToken, 'POST', '/Employees', {
      schemas: [EMPLOYEE],
      externalId: 'WD-1',
      employeeNumber: 'E-1',
      employmentStatus: 'ACTIVE',
    });
    expect(employee.status, JSON.stringify(employee.body)).toBe(201);
    userId = employee.body.id;
    const { grant, token: impersonation } = await issue();
    const terminated = await hris(t, hrisToken, 'PATCH', `/Employees/${userId}`, patch({ op: 'replace', path: 'employmentStatus', value: 'TERMINATED' }));
    expect(terminated.status, JSON.stringify(terminated.body)).toBe(200);
    expect(terminated.body.active).toBe(false);
    const today = new Date().toISOString().slice(0, 10);
    const rehire = { schemas: [EMPLOYEE], externalId: 'WD-1', employeeNumber: 'E-1', employmentStatus: 'ACTIVE', startDate: today };
    const rehired = await hris(t, hrisToken, 'PUT', `/Employees/${userId}`, rehire);
    expect(rehired.body.active).toBe(true);
    expect((await userinfo(impersonation)).statusCode).toBe(401);
    await expectRevokedBy(grant.id, { type: 'provisioning_token', id: provisioningToken.id });
  });

  it('leaves the grants of another user alone', async () => {
    const other = (await call('POST', `${env}/directory/users`, { userName: 'grace@example.com' })).json().user.id;
    const res = await call('POST', `${env}/impersonation/grants`, { userId: other, reason: 'Ticket #8' });
    await call('POST', `${env}/directory/users/${userId}/deactivate`);
    expect((await userinfo(res.json().token)).statusCode).toBe(200);
  });
});
