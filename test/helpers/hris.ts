// A caller of the HRIS service functions, as the HRIS surface will pass one: the bootstrap user acting in an
// environment of the bootstrap tenant (the HTTP layer resolves it from its credential).
import { createTenantQueries } from '../../db/tenants/tenants/queries.ts';
import type { EnvironmentCaller } from '../../api/access/caller.ts';
import type { TestApp } from './app.ts';

export async function hrisCaller(t: TestApp, environmentId: string): Promise<EnvironmentCaller> {
  const { tenantId, organizationId, userId } = t.credentials;
  const tenant = await createTenantQueries(t.pool).findReachableTenantById(tenantId, [organizationId]);
  if (!tenant) throw new Error(`tenant ${tenantId} not found`);
  return {
    principal: {
      type: 'user',
      id: userId,
      credentialId: userId,
      organizationIds: [organizationId],
      scopes: ['*'],
      environmentId: t.credentials.environmentId,
      expiresAt: null,
      tenantIds: null,
      seats: [],
    },
    actor: { type: 'user', id: userId },
    origin: {},
    scope: { tenant, organizationId, environmentId },
  };
}
