// What a caller may reach, checked the same way by every service: tenants through the caller's
// organizations (404 otherwise, never 403), environments inside a tenant, and outbound URLs.
import type { CommonQueryMethods } from 'slonik';
import { checkOutboundUrl, OutboundUrlError, type LookupFn } from '../../activities/outbound/ssrf-guard.ts';
import { createProjectQueries } from '../../db/queries/projects.ts';
import { createTenantQueries } from '../../db/queries/tenants.ts';
import { invalidField, notFound } from '../errors.ts';
import type { Caller } from './context.ts';

export async function reachableTenant(db: CommonQueryMethods, caller: Caller, tenantId: string) {
  const tenant = await createTenantQueries(db).findReachableTenantById(tenantId, caller.principal.organizationIds);
  if (!tenant) throw notFound('tenant', tenantId);
  return tenant;
}

export function reachableOrganization(caller: Caller, organizationId: string) {
  if (!caller.principal.organizationIds.includes(organizationId)) throw notFound('organization', organizationId);
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
