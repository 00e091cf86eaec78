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
      summary: 'List tenants the caller can reach',
      security: requires('tenants:read'),
      querystring: PageQuery,
      response: { 200: TenantsList, ...errorResponses() },
    },
    handler: (request) => tenants.list(callerOf(request), request.query),
  });

  app.post('/v1/tenants', {
    schema: {
      tags,
      summary: 'Create a tenant',
      security: requires('tenants:write'),
      body: CreateTenantBody,
      response: { 201: TenantResponse, ...errorResponses(409) },
    },
    handler: async (request, reply) => reply.status(201).send({ tenant: await tenants.create(callerOf(request), request.body) }),
  });

  app.get('/v1/tenants/:tenantId', {
    schema: {
      tags,
      summary: 'Get a tenant',
      security: requires('tenants:read'),
      params: TenantParams,
      response: { 200: TenantResponse, ...errorResponses(404) },
    },
    handler: (request) => ({ tenant: tenants.get(callerOf(request, 'tenant')) }),
  });

  app.patch('/v1/tenants/:tenantId', {
    schema: {
      tags,
      summary: 'Update a tenant',
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
      summary: 'Delete a tenant and everything in it',
      security: requires('tenants:write'),
      params: TenantParams,
      response: { 200: TenantResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ tenant: await tenants.remove(callerOf(request, 'tenant')) }),
  });
}
