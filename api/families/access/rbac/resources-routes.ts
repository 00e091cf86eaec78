import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  BatchResourcesBody,
  BatchResourcesResponse,
  PutResourceBody,
  ResourceParams,
  ResourceResponse,
  ResourcesList,
  ResourcesQuery,
  TypeParams,
} from './schemas.ts';
import { RBAC_BASE, rbacRead, rbacWrite } from './resource-types-routes.ts';
import type { ResourceService } from './resources-service.ts';
import type { App } from '../../../types.ts';

const tags = ['RBAC'];
const base = `${RBAC_BASE}/resources/:type`;

export function resourceRoutes(app: App, resources: ResourceService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listRbacResources',
      summary: 'List the stored resources of a type',
      description: 'Lists the stored resources of a type by id, one page at a time with `cursor`, optionally only ids starting with `idPrefix`.',
      security: rbacRead,
      params: TypeParams,
      querystring: ResourcesQuery,
      response: { 200: ResourcesList, ...errorResponses(404) },
    },
    handler: (r) => resources.list(callerOf(r, 'environment'), r.params.type, r.query),
  });
  app.post(`${base}/batch`, {
    schema: {
      tags,
      operationId: 'upsertRbacResources',
      summary: 'Store or replace many resources of a type at once',
      description:
        'Stores or replaces up to 1000 resources of the type in one transaction, recorded as one audit entry and one `rbac.resources.upserted` event. 400 naming the first repeated id.',
      security: rbacWrite,
      params: TypeParams,
      body: BatchResourcesBody,
      response: { 200: BatchResourcesResponse, ...errorResponses(404) },
    },
    handler: (r) => resources.upsertMany(callerOf(r, 'environment'), r.params.type, r.body.resources),
  });
  app.get(`${base}/:resourceId`, {
    schema: {
      tags,
      operationId: 'getRbacResource',
      summary: 'Get a stored resource',
      description: 'Returns the stored resource with its attributes (the id is URL-encoded in the path).',
      security: rbacRead,
      params: ResourceParams,
      response: { 200: ResourceResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resource: await resources.find(callerOf(r, 'environment'), r.params.type, r.params.resourceId) }),
  });
  app.put(`${base}/:resourceId`, {
    schema: {
      tags,
      operationId: 'putRbacResource',
      summary: 'Store or replace a resource',
      description:
        'Stores the resource (201) or replaces its attributes (200). The id is chosen by the client: 1–200 characters without control characters, URL-encoded in the path. Attributes are read by conditions as `resource.properties` (at most 16 KiB).',
      security: rbacWrite,
      params: ResourceParams,
      body: PutResourceBody,
      response: { 200: ResourceResponse, 201: ResourceResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { resource, created } = await resources.put(callerOf(r, 'environment'), r.params.type, r.params.resourceId, r.body.attributes);
      return reply.status(created ? 201 : 200).send({ resource });
    },
  });
  app.delete(`${base}/:resourceId`, {
    schema: {
      tags,
      operationId: 'deleteRbacResource',
      summary: 'Delete a stored resource',
      description: 'Deletes the stored resource and returns its last state.',
      security: rbacWrite,
      params: ResourceParams,
      response: { 200: ResourceResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resource: await resources.remove(callerOf(r, 'environment'), r.params.type, r.params.resourceId) }),
  });
}
