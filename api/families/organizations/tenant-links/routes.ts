import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  LinkTenantBody,
  LinkTenantResponse,
  OrganizationParams,
  OrganizationResponse,
  OrganizationTenantParams,
  TransferParams,
  TransferTenantBody,
} from '../organizations/schemas.ts';
import { TenantResponse } from '../../tenants/tenants/schemas.ts';
import type { OrganizationTenantService } from './service.ts';
import type { App } from '../../../types.ts';

export function organizationTenantRoutes(app: App, links: OrganizationTenantService) {
  app.post('/v1/organizations/:organizationId/tenants', {
    schema: {
      tags: ['Organizations'],
      operationId: 'linkOrganizationTenant',
      summary: 'Link a tenant the caller reaches to an organization',
      description:
        'Adds a tenant the caller reaches to the tenants of the organization. 404 for a tenant out of reach, 409 `organization.tenant_already_linked` when it is linked already.',
      security: requires('organizations:write'),
      params: OrganizationParams,
      body: LinkTenantBody,
      response: { 200: LinkTenantResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await links.link(callerOf(request, 'organization'), request.body.tenantId) }),
  });

  app.delete('/v1/organizations/:organizationId/tenants/:tenantId', {
    schema: {
      tags: ['Organizations'],
      operationId: 'unlinkOrganizationTenant',
      summary: 'Unlink a tenant from an organization (refused for its last organization)',
      description:
        'Removes a tenant from the organization and returns the organization. 409 when it is the last organization of the tenant: transfer the tenant instead.',
      security: requires('organizations:write'),
      params: OrganizationTenantParams,
      response: { 200: OrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await links.unlink(callerOf(request, 'organization'), request.params.tenantId) }),
  });

  app.post('/v1/tenants/:tenantId/transfer', {
    schema: {
      tags: ['Tenants'],
      operationId: 'transferTenant',
      summary: "Move a tenant from the caller's organizations to another organization of the caller",
      description:
        "Moves a tenant out of the caller's organizations into another organization of the caller; `confirmationName` must repeat the tenant's name exactly (400 `tenant.confirmation_mismatch`). 409 when it already belongs to the target only.",
      security: requires('tenants:write'),
      params: TransferParams,
      body: TransferTenantBody,
      response: { 200: TenantResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ tenant: await links.transfer(callerOf(request, 'tenant'), request.body) }),
  });
}
