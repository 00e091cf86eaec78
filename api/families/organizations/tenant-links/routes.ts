import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  LinkTenantBody,
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
      summary: 'Link a tenant the caller reaches to an organization',
      security: requires('organizations:write'),
      params: OrganizationParams,
      body: LinkTenantBody,
      response: { 200: OrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await links.link(callerOf(request, 'organization'), request.body.tenantId) }),
  });

  app.delete('/v1/organizations/:organizationId/tenants/:tenantId', {
    schema: {
      tags: ['Organizations'],
      summary: 'Unlink a tenant from an organization (refused for its last organization)',
      security: requires('organizations:write'),
      params: OrganizationTenantParams,
      response: { 200: OrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await links.unlink(callerOf(request, 'organization'), request.params.tenantId) }),
  });

  app.post('/v1/tenants/:tenantId/transfer', {
    schema: {
      tags: ['Tenants'],
      summary: "Move a tenant from the caller's organizations to another organization of the caller",
      security: requires('tenants:write'),
      params: TransferParams,
      body: TransferTenantBody,
      response: { 200: TenantResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ tenant: await links.transfer(callerOf(request, 'tenant'), request.body) }),
  });
}
