// The signed-in user as the elevate services' caller: a directory user of the environment acting for itself, with no
// management scopes, so the services apply the same rules (eligibility, self-approval, grantee) and audit it as the
// actor, exactly as for the user's own token.
import type { FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { tenantOfEnvironment } from '../../../../db/access/elevate/requests.ts';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import type { PageSession } from './cookies.ts';

export async function pageCaller(pool: DatabasePool, request: FastifyRequest, session: PageSession): Promise<EnvironmentCaller> {
  const { environmentId, userId } = session;
  const tenant = (await createTenantQueries(pool).findTenantById(await tenantOfEnvironment(pool, environmentId)))!;
  return {
    principal: {
      type: 'user',
      id: userId,
      credentialId: userId,
      organizationIds: tenant.organizationIds,
      scopes: [],
      environmentId,
      expiresAt: session.expiresAt,
      tenantIds: null,
      seats: [],
    },
    actor: { type: 'user', id: userId },
    origin: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
    scope: { tenant, organizationId: tenant.organizationIds[0] ?? null, environmentId },
  };
}
