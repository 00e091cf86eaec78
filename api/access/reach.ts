// What a principal reaches, decided here and nowhere else: the organizations it belongs to (organization-wide
// data is out of reach of a credential limited to some tenants), the tenants of those organizations (narrowed by
// an organization key's tenant list, widened by a user's tenant seats in force), and the environments of a
// tenant. api/plugins/scope.ts applies it once per request; what is out of reach is 404, never 403.
import type { CommonQueryMethods } from 'slonik';
import { checkOutboundUrl, OutboundUrlError, type LookupFn } from '../../lib/outbound/ssrf-guard.ts';
import { createEnvironmentQueries } from '../../db/projects/environments/queries.ts';
import type { PageRequest } from '../../db/shared/pages.ts';
import { createTenantQueries } from '../../db/tenants/tenants/queries.ts';
import type { Tenant } from '../../db/tenants/tenants/rows.ts';
import { invalidField, notFound } from '../errors.ts';
import type { RequestScope } from './caller.ts';
import { tenantAccess, type Principal } from './principals.ts';

/** A tenant reached only through a seat shows no organizations (SPEC: Tenant.organizationIds). */
export const visibleTenant = (principal: Principal, tenant: Tenant): Tenant =>
  tenant.organizationIds.some((id) => principal.organizationIds.includes(id)) ? tenant : { ...tenant, organizationIds: [] };

/** The tenant as the principal sees it, if it reaches it; `viaSeats: false` counts its organizations only (a say over links). */
export async function findReachableTenant(db: CommonQueryMethods, principal: Principal, tenantId: string, options: { viaSeats?: boolean } = {}) {
  const access = options.viaSeats === false ? { tenantIds: principal.tenantIds } : tenantAccess(principal);
  const tenant = await createTenantQueries(db).findReachableTenantById(tenantId, principal.organizationIds, access);
  return tenant && visibleTenant(principal, tenant);
}

/** The tenants a principal reaches, a page at a time. */
export async function reachableTenants(db: CommonQueryMethods, principal: Principal, page: PageRequest) {
  const found = await createTenantQueries(db).findReachableTenants(principal.organizationIds, page, tenantAccess(principal));
  return { ...found, items: found.items.map((t) => visibleTenant(principal, t)) };
}

/** A member reaches its organizations, unless limited to some of their tenants (organization data spans them all). */
export const reachesOrganization = (principal: Principal, organizationId: string) =>
  principal.organizationIds.includes(organizationId) && principal.tenantIds === null;

/** A body's `environmentId` must name an environment of the tenant (400 naming the field). */
export async function checkEnvironmentInTenant(db: CommonQueryMethods, tenantId: string, environmentId: string | null | undefined) {
  if (environmentId && !(await createEnvironmentQueries(db, tenantId).find(environmentId))) {
    throw invalidField('body.environmentId', 'is not an environment of this tenant');
  }
}

/** How a route addressing a tenant's resource by its own id alone (no `:tenantId`) finds the tenant to check. */
export interface TenantOf {
  /** The path param naming the resource, e.g. `webhookId`. */
  param: string;
  /** The resource, named by the 404 (`webhook.not_found`). */
  resource: string;
  /** The tenant of the resource, or null when there is none. */
  find: (db: CommonQueryMethods, id: string) => Promise<string | null>;
  /** The resource's UUID from the param, when the param is not the UUID itself (an FGA store id); null names nothing. */
  idOf?: (value: string) => string | null;
  /** The resource is an environment (an FGA store): the scope's environment is the one found. */
  environment?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A param that is not a UUID names nothing; the route's params schema answers it with a 400.
const idParam = (params: Record<string, unknown>, name: string) => {
  const value = params[name];
  return typeof value === 'string' && UUID.test(value) ? value : null;
};

/** What the path params address (`:organizationId`, `:tenantId` or `tenantOf`, `:environmentId` in the tenant), checked. */
export async function resolveScope(db: CommonQueryMethods, principal: Principal, params: Record<string, unknown>, tenantOf?: TenantOf): Promise<RequestScope> {
  const organizationId = idParam(params, 'organizationId');
  if (organizationId && !reachesOrganization(principal, organizationId)) throw notFound('organization', organizationId);

  const raw = tenantOf?.idOf ? params[tenantOf.param] : undefined;
  const resourceId = tenantOf ? (tenantOf.idOf ? (typeof raw === 'string' ? tenantOf.idOf(raw) : null) : idParam(params, tenantOf.param)) : null;
  const tenantId = tenantOf && resourceId ? await tenantOf.find(db, resourceId) : idParam(params, 'tenantId');
  const environmentId = tenantId ? (tenantOf?.environment ? resourceId : idParam(params, 'environmentId')) : null;
  // The environment is looked up beside the tenant (one round trip, not two); it counts only once the tenant is reached.
  const [tenant, environmentFound] = await Promise.all([
    tenantId ? findReachableTenant(db, principal, tenantId) : null,
    tenantId && environmentId ? createEnvironmentQueries(db, tenantId).exists(environmentId) : false,
  ]);
  if (tenantOf && resourceId && !tenant) throw notFound(tenantOf.resource, typeof raw === 'string' ? raw : resourceId);
  if (tenantId && !tenant) throw notFound('tenant', tenantId);
  if (environmentId && !environmentFound) throw notFound('environment', environmentId);

  return {
    tenant,
    organizationId: organizationId ?? tenant?.organizationIds.find((id) => principal.organizationIds.includes(id)) ?? null,
    environmentId: environmentId ?? null,
  };
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
