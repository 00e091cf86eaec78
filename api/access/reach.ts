// What a caller may reach, checked the same way by every service: tenants through the caller's
// organizations (404 otherwise, never 403), narrowed by an organization key's tenant list and widened by
// a user's tenant seats in force; environments inside a tenant, and outbound URLs.
import type { CommonQueryMethods } from 'slonik';
import { checkOutboundUrl, OutboundUrlError, type LookupFn } from '../../lib/outbound/ssrf-guard.ts';
import { createProjectQueries } from '../../db/projects/projects/queries.ts';
import { createTenantQueries } from '../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../db/tenants/tenants/rows.ts';
import { invalidField, notFound } from '../errors.ts';
import type { Caller } from './caller.ts';
import { tenantAccess, type Principal } from './principals.ts';

/** A tenant reached only through a seat shows no organizations (SPEC: Tenant.organizationIds). */
export const visibleTenant = (principal: Principal, tenant: Tenant): Tenant =>
  tenant.organizationIds.some((id) => principal.organizationIds.includes(id)) ? tenant : { ...tenant, organizationIds: [] };

export async function reachableTenant(db: CommonQueryMethods, caller: Caller, tenantId: string) {
  const tenant = await createTenantQueries(db).findReachableTenantById(tenantId, caller.principal.organizationIds, tenantAccess(caller.principal));
  if (!tenant) throw notFound('tenant', tenantId);
  return visibleTenant(caller.principal, tenant);
}

/** The tenants a caller can reach, a page at a time. */
export async function reachableTenants(db: CommonQueryMethods, caller: Caller, page: { limit: number; offset: number }) {
  const found = await createTenantQueries(db).findReachableTenants(caller.principal.organizationIds, page, tenantAccess(caller.principal));
  return { ...found, tenants: found.tenants.map((t) => visibleTenant(caller.principal, t)) };
}

/** `wholeOrganization`: the operation spans every tenant of it, so a caller limited to some tenants gets 404. */
export function reachableOrganization(caller: Caller, organizationId: string, options: { wholeOrganization?: boolean } = {}) {
  if (!caller.principal.organizationIds.includes(organizationId)) throw notFound('organization', organizationId);
  if (options.wholeOrganization && caller.principal.tenantIds !== null) throw notFound('organization', organizationId);
}

export async function checkEnvironmentInTenant(db: CommonQueryMethods, tenantId: string, environmentId: string | null | undefined) {
  if (environmentId && !(await createProjectQueries(db).environmentInTenant(environmentId, tenantId))) {
    throw invalidField('body.environmentId', 'is not an environment of this tenant');
  }
}

/** The SSRF guard at create/update time: a refused target is a 400 naming the field. */
export async function checkTargetUrl(url: string, options: { allowPrivate: boolean; path: string; code: string; lookup?: LookupFn }) {
  try {
    await checkOutboundUrl(url, { allowPrivate: options.allowPrivate, lookup: options.lookup });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw invalidField(options.path, error.message, options.code);
    throw error;
  }
}
