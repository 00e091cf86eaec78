// The caller of what an admin does in the portal: the portal session, acting in its link's organization, tenant and
// environment (audit actor `{ type: 'portal_session', id }`). The families' services it calls read only actor,
// origin and scope; a portal session has no management principal (no scopes, no reach beyond its link).
import type { FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import type { PortalSession } from '../../../../db/organizations/admin-portal/rows.ts';
import type { EnvironmentCaller, TenantCaller } from '../../../access/caller.ts';

export type PortalCaller = TenantCaller & { scope: { organizationId: string } };

export async function portalCaller(pool: DatabasePool, session: PortalSession, request: FastifyRequest): Promise<PortalCaller> {
  const tenant = await createTenantQueries(pool).findTenantById(session.tenantId);
  if (!tenant) throw new Error(`portal session ${session.id}: tenant ${session.tenantId} is gone`);
  return {
    principal: {
      type: 'service_account',
      id: session.id,
      credentialId: session.id,
      organizationIds: [session.organizationId],
      scopes: [],
      environmentId: session.environmentId,
      expiresAt: Date.parse(session.expiresAt),
      tenantIds: [session.tenantId],
      seats: [],
    },
    actor: { type: 'portal_session', id: session.id },
    origin: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
    scope: { tenant, organizationId: session.organizationId, environmentId: session.environmentId },
  };
}

/** The caller as an environment caller: the intents that need one (sso, directory_sync) always have an environment. */
export function inEnvironment(caller: PortalCaller): EnvironmentCaller {
  const { environmentId } = caller.scope;
  if (!environmentId) throw new Error('this portal intent needs an environment');
  return caller as EnvironmentCaller;
}
