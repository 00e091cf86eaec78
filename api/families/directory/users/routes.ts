import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery, SuccessIdResponse } from '../../../common/schemas.ts';
import { CreateUserBody, EnvironmentScopeParams, UpdateUserBody, UserGroupsList, UserParams, UserResponse, UsersList, UsersQuery } from './schemas.ts';
import type { DirectoryUserService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/users';
const read = requires('directory:read');
const write = requires('directory:write');
const params = UserParams;

export function directoryUserRoutes(app: App, users: DirectoryUserService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listDirectoryUsers',
      summary: 'List the users of an environment',
      description:
        'Lists the users of the environment oldest first, one page at a time with `cursor`, filtered by email (exact or prefix), userName (case-insensitively), externalId, active or group.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: UsersQuery,
      response: { 200: UsersList, ...errorResponses(404) },
    },
    handler: (r) => users.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createDirectoryUser',
      summary: 'Create a user',
      description:
        'Creates a user of the environment. 409 `directory.user_name_taken`, `directory.email_taken` or `directory.external_id_taken` when another user holds the userName, an email (both case-insensitively) or the externalId; 409 `directory.identifier_taken` when the externalId is another user’s userName (case-insensitively) or id, or the userName another user’s externalId or id (an AuthZEN subject id names one user).',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateUserBody,
      response: { 201: UserResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ user: await users.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:userId`, {
    schema: {
      tags,
      operationId: 'getDirectoryUser',
      summary: 'Get a user',
      description: 'Returns one user of the environment with its emails, names, custom attributes and state.',
      security: read,
      params,
      response: { 200: UserResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ user: await users.find(callerOf(r, 'environment'), r.params.userId) }),
  });
  app.patch(`${base}/:userId`, {
    schema: {
      tags,
      operationId: 'updateDirectoryUser',
      summary: 'Update a user',
      description:
        'Replaces the fields given: lists (emails, phone numbers, addresses, photos) and attributes are replaced whole. 409 as on create when a new value is taken. Setting `active` to false revokes the impersonation grants acting as the user.' +
        '403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.',
      security: write,
      params,
      body: UpdateUserBody,
      response: { 200: UserResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ user: await users.update(callerOf(r, 'environment'), r.params.userId, r.body) }),
  });
  app.delete(`${base}/:userId`, {
    schema: {
      tags,
      operationId: 'deleteDirectoryUser',
      summary: 'Delete a user',
      description:
        'Deletes the user with its group memberships, role assignments and credentials; decisions about it deny from now on.' +
        ' 403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.',
      security: write,
      params,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => users.remove(callerOf(r, 'environment'), r.params.userId),
  });
  app.post(`${base}/:userId/deactivate`, {
    schema: {
      tags,
      operationId: 'deactivateDirectoryUser',
      summary: 'Deactivate a user',
      description:
        'Deactivates the user: decisions about it deny and its tokens are refused from now on; the impersonation grants acting as it are revoked, and activating it again does not revive them. Deactivating an inactive user changes nothing.' +
        ' 403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.',
      security: write,
      params,
      response: { 200: UserResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ user: await users.deactivate(callerOf(r, 'environment'), r.params.userId) }),
  });
  app.post(`${base}/:userId/activate`, {
    schema: {
      tags,
      operationId: 'activateDirectoryUser',
      summary: 'Activate a user',
      description:
        'Activates a deactivated user again. Activating an active user changes nothing.' +
        ' 403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.',
      security: write,
      params,
      response: { 200: UserResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ user: await users.activate(callerOf(r, 'environment'), r.params.userId) }),
  });
  app.get(`${base}/:userId/groups`, {
    schema: {
      tags,
      operationId: 'listDirectoryUserGroups',
      summary: 'List the groups of a user',
      description: 'Lists the groups the user belongs to, oldest first, one page at a time.',
      security: read,
      params,
      querystring: PageQuery,
      response: { 200: UserGroupsList, ...errorResponses(404) },
    },
    handler: (r) => users.groupsOf(callerOf(r, 'environment'), r.params.userId, r.query),
  });
}
