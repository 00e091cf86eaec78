// A test app and its token for the file, and before each test a fresh tenant with one environment: the set-up of the
// suites that work inside one environment's management routes.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestApp, type TestApp } from './app.ts';
import { newEnvironments } from './fixtures.ts';

export interface EnvironmentPerTest {
  t: TestApp;
  token: string;
  tenantId: string;
  environmentId: string;
  /** `/v1/tenants/{tenantId}/environments/{environmentId}` */
  base: string;
}

export function environmentPerTest(): EnvironmentPerTest {
  const ctx = {} as EnvironmentPerTest;
  beforeAll(async () => {
    ctx.t = await startTestApp();
    ctx.token = await ctx.t.token();
  });
  beforeEach(async () => {
    const { tenantId, environmentIds } = await newEnvironments(ctx.t, ctx.token);
    Object.assign(ctx, { tenantId, environmentId: environmentIds[0]!, base: `/v1/tenants/${tenantId}/environments/${environmentIds[0]}` });
  });
  afterAll(() => ctx.t.close());
  return ctx;
}
