import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(() => t.close());

describe('tenants', () => {
  it('lists the reachable tenants with total', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tenants: [{
        id: t.credentials.tenantId, name: 'Default', description: 'Created on first start', company: null, active: true,
        createdAt: expect.any(String), updatedAt: expect.any(String), organizationIds: [t.credentials.organizationId],
      }],
      total: 1,
    });
  });
});
