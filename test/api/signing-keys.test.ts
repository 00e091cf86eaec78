// Signing keys sign every organization's access tokens: rotating them is the operators' business.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
});
afterAll(() => t.close());

const call = (token: string, method: 'GET' | 'POST', url: string) => t.app.inject({ method, url: `/v1${url}`, headers: bearer(token) });
const signingKeys = async () => (await call(admin, 'GET', '/signing-keys')).json().keys;

describe('signing key rotation', () => {
  it('is refused to a principal of another organization holding `*` (403 signing_key.operator_only)', async () => {
    const before = await signingKeys();
    const other = await otherOrganization(t);
    const refused = await call(other.token, 'POST', '/signing-keys/rotate');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: expect.any(String), code: 'signing_key.operator_only', requestId: expect.any(String) });
    expect(await signingKeys()).toEqual(before);
    const theirs = await call(other.token, 'GET', `/organizations/${other.organizationId}/audit-logs?action=signing_key.rotate`);
    expect(theirs.json().auditLogs).toEqual([]);
  });

  it("is recorded in the operator organization's audit log", async () => {
    const rotated = await call(admin, 'POST', '/signing-keys/rotate');
    expect(rotated.statusCode).toBe(200);
    const kid = rotated.json().keys.find((k: { status: string }) => k.status === 'active').kid;
    const org = t.credentials.organizationId;
    const audit = await call(admin, 'GET', `/organizations/${org}/audit-logs?action=signing_key.rotate`);
    expect(audit.statusCode).toBe(200);
    expect(audit.json().auditLogs).toEqual([
      expect.objectContaining({
        organizationId: org,
        tenantId: null,
        environmentId: null,
        actor: { type: 'service_account', id: expect.any(String) },
        action: 'signing_key.rotate',
        resource: { type: 'signing_key', id: kid },
        changes: { before: null, after: { kid } },
      }),
    ]);
  });
});
