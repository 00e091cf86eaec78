// The HRIS service functions take an environment caller; over /v1/hris/v1 it is the provisioning token, acting in
// the token's environment (the audit actor `{ type: 'provisioning_token', id }`).
import type { DatabasePool } from 'slonik';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import { ScimError } from '../../../../lib/scim/errors.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import type { ScimContext } from '../scim/descriptor.ts';

export async function hrisCaller(pool: DatabasePool, ctx: ScimContext): Promise<EnvironmentCaller> {
  const tenant = await createTenantQueries(pool).findTenantById(ctx.tenantId);
  if (!tenant) throw new ScimError(401, 'The provisioning token is not valid.');
  return {
    // The services read only actor, origin and scope; a provisioning token has no management principal.
    principal: {
      type: 'service_account',
      id: ctx.tokenId,
      credentialId: ctx.tokenId,
      organizationIds: [],
      scopes: [],
      environmentId: ctx.environmentId,
      expiresAt: null,
      tenantIds: [],
      seats: [],
    },
    actor: { type: 'provisioning_token', id: ctx.tokenId },
    origin: ctx.origin,
    scope: { tenant, organizationId: null, environmentId: ctx.environmentId },
  };
}

/** If-Match as the version the services compare (`W/"3"` → 3); `*` or none: any version; an unknown one never matches. */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (!ifMatch || ifMatch.trim() === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,9})"$/.exec(ifMatch.split(',')[0]!.trim());
  return match ? Number(match[1]) : -1;
}
