import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  ActionParams,
  CreateResourceTypeBody,
  EnvironmentParams,
  PermissionsList,
  PutActionBody,
  ResourceTypeResponse,
  ResourceTypesList,
  TypeParams,
  UpdateResourceTypeBody,
} from './schemas.ts';
import type { ResourceTypeService } from './resource-types-service.ts';
import type { App } from '../../../types.ts';

const tags = ['RBAC'];
export const RBAC_BASE = '/v1/tenants/:tenantId/environments/:environmentId/rbac';
export const rbacRead = requires('rbac:read');
export const rbacWrite = requires('rbac:write');
const base = `${RBAC_BASE}/resource-types`;

export function resourceTypeRoutes(app: App, types: ResourceTypeService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listRbacResourceTypes',
      summary: 'List resource types',
      description: 'Lists the resource types of the environment with their actions, by key, one page at a time.',
      security: rbacRead,
      params: EnvironmentParams,
      querystring: PageQuery,
      response: { 200: ResourceTypesList, ...errorResponses(404) },
    },
    handler: (r) => types.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createRbacResourceType',
      summary: 'Create a resource type with its actions',
      description:
        'Creates a resource type (what AuthZEN requests name as `resource.type`) with its actions; each action on it is a permission `<type>:<action>`. 409 `resource_type.already_exists` when the key is taken.',
      security: rbacWrite,
      params: EnvironmentParams,
      body: CreateResourceTypeBody,
      response: { 201: ResourceTypeResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ resourceType: await types.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:type`, {
    schema: {
      tags,
      operationId: 'getRbacResourceType',
      summary: 'Get a resource type',
      description: 'Returns the resource type with this key and its actions.',
      security: rbacRead,
      params: TypeParams,
      response: { 200: ResourceTypeResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resourceType: await types.find(callerOf(r, 'environment'), r.params.type) }),
  });
  app.patch(`${base}/:type`, {
    schema: {
      tags,
      operationId: 'updateRbacResourceType',
      summary: 'Update a resource type',
      description:
        'Changes the name, description or storedInstancesOnly. `actions` replaces the whole list of actions: removing an action also removes every role permission on it.',
      security: rbacWrite,
      params: TypeParams,
      body: UpdateResourceTypeBody,
      response: { 200: ResourceTypeResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resourceType: await types.update(callerOf(r, 'environment'), r.params.type, r.body) }),
  });
  app.delete(`${base}/:type`, {
    schema: {
      tags,
      operationId: 'deleteRbacResourceType',
      summary: 'Delete a resource type with its resources and permissions',
      description: 'Deletes the resource type, its stored resources and every role permission on it, and returns its last state.',
      security: rbacWrite,
      params: TypeParams,
      response: { 200: ResourceTypeResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resourceType: await types.remove(callerOf(r, 'environment'), r.params.type) }),
  });
  app.put(`${base}/:type/actions/:action`, {
    schema: {
      tags,
      operationId: 'putRbacAction',
      summary: 'Add or update one action of a resource type',
      description: 'Adds the action (201) or updates its description (200), and returns the resource type.',
      security: rbacWrite,
      params: ActionParams,
      body: PutActionBody,
      response: { 200: ResourceTypeResponse, 201: ResourceTypeResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { resourceType, added } = await types.putAction(callerOf(r, 'environment'), r.params.type, { name: r.params.action, ...r.body });
      return reply.status(added ? 201 : 200).send({ resourceType });
    },
  });
  app.delete(`${base}/:type/actions/:action`, {
    schema: {
      tags,
      operationId: 'deleteRbacAction',
      summary: 'Remove one action of a resource type',
      description: 'Removes the action and every role permission on it, and returns the resource type. 404 `action.not_found` for an unknown action.',
      security: rbacWrite,
      params: ActionParams,
      response: { 200: ResourceTypeResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ resourceType: await types.removeAction(callerOf(r, 'environment'), r.params.type, r.params.action) }),
  });
  app.get(`${RBAC_BASE}/permissions`, {
    schema: {
      tags,
      operationId: 'listRbacPermissions',
      summary: 'List permissions',
      description: 'Lists every permission `<type>:<action>` of the environment (each action of each resource type), by type and action.',
      security: rbacRead,
      params: EnvironmentParams,
      querystring: PageQuery,
      response: { 200: PermissionsList, ...errorResponses(404) },
    },
    handler: (r) => types.permissions(callerOf(r, 'environment'), r.query),
  });
}
