import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { CreateTenantBody, TenantParams, TenantResponse, TenantsList, UpdateTenantBody } from './schemas.ts';
import type { TenantService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Tenants'];

export function tenantRoutes(app: App, tenants: TenantService) {
  app.get('/v1/tenants', {
    schema: {
      tags,
      operationId: 'listTenants',
      summary: 'List tenants the caller can reach',
      description:
        'Lists the tenants the caller reaches, through its organizations or a tenant seat, one page at a time; a key limited to listed tenants sees only those.',
      security: requires('tenants:read'),
      querystring: PageQuery,
      response: { 200: TenantsList, ...errorResponses() },
    },
    handler: (request) => tenants.list(callerOf(request), request.query),
  });

  app.post('/v1/tenants', {
    schema: {
      tags,
      operationId: 'createTenant',
      summary: 'Create a tenant',
      description:
        'Creates a tenant in an organization of the caller. 400 `tenant.organization_unreachable` for an organization the caller does not belong to; 403 `tenant.create_beyond_limit` for a credential limited to listed tenants.',
      security: requires('tenants:write'),
      body: CreateTenantBody,
      response: { 201: TenantResponse, ...errorResponses(409) },
    },
    handler: async (request, reply) => reply.status(201).send({ tenant: await tenants.create(callerOf(request), request.body) }),
  });

  app.get('/v1/tenants/:tenantId', {
    schema: {
      tags,
      operationId: 'getTenant',
      summary: 'Get a tenant',
      description: 'Returns one tenant the caller reaches. 404 for any other tenant, whether it exists or not.',
      security: requires('tenants:read'),
      params: TenantParams,
      response: { 200: TenantResponse, ...errorResponses(404) },
    },
    handler: (request) => ({ tenant: tenants.get(callerOf(request, 'tenant')) }),
  });

  app.patch('/v1/tenants/:tenantId', {
    schema: {
      tags,
      operationId: 'updateTenant',
      summary: 'Update a tenant',
      description: 'Changes the name, description or company of a tenant the caller reaches. 404 for any other tenant.',
      security: requires('tenants:write'),
      params: TenantParams,
      body: UpdateTenantBody,
      response: { 200: TenantResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ tenant: await tenants.update(callerOf(request, 'tenant'), request.body) }),
  });

  app.delete('/v1/tenants/:tenantId', {
    schema: {
      tags,
      operationId: 'deleteTenant',
      summary: 'Delete a tenant and everything in it',
      description: 'Deletes a tenant with its projects, environments and everything in them, and returns it. 404 for a tenant out of reach.',
      security: requires('tenants:write'),
      params: TenantParams,
      response: { 200: TenantResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ tenant: await tenants.remove(callerOf(request, 'tenant')) }),
  });
}
