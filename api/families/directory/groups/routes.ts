import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, SuccessIdResponse } from '../../../common/schemas.ts';
import {
  AddMemberBody,
  CreateGroupBody,
  EnvironmentScopeParams,
  GroupParams,
  GroupResponse,
  GroupsList,
  GroupsQuery,
  MemberParams,
  MembersList,
  PageQuery,
  UpdateGroupBody,
} from './schemas.ts';
import type { GroupService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/groups';
const read = requires('directory:read');
const write = requires('directory:write');
const params = GroupParams;

export function directoryGroupRoutes(app: App, groups: GroupService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listDirectoryGroups',
      summary: 'List the groups of an environment',
      description: 'Lists the groups of the environment oldest first, one page at a time, optionally by name (case-insensitively) or externalId.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: GroupsQuery,
      response: { 200: GroupsList, ...errorResponses(404) },
    },
    handler: (r) => groups.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createDirectoryGroup',
      summary: 'Create a group',
      description:
        'Creates a group of the environment. 409 `directory.group_name_taken` or `directory.group_external_id_taken` when another group holds the name (case-insensitively) or the externalId; 409 `directory.identifier_taken` when the externalId is another group’s name (case-insensitively) or id, or the name another group’s externalId or id.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateGroupBody,
      response: { 201: GroupResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ group: await groups.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:groupId`, {
    schema: {
      tags,
      operationId: 'getDirectoryGroup',
      summary: 'Get a group',
      description: 'Returns one group of the environment with its custom attributes and member count.',
      security: read,
      params,
      response: { 200: GroupResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ group: await groups.find(callerOf(r, 'environment'), r.params.groupId) }),
  });
  app.patch(`${base}/:groupId`, {
    schema: {
      tags,
      operationId: 'updateDirectoryGroup',
      summary: 'Update a group',
      description: 'Replaces the fields given (attributes whole). 409 as on create when the new name or externalId is taken.',
      security: write,
      params,
      body: UpdateGroupBody,
      response: { 200: GroupResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ group: await groups.update(callerOf(r, 'environment'), r.params.groupId, r.body) }),
  });
  app.delete(`${base}/:groupId`, {
    schema: {
      tags,
      operationId: 'deleteDirectoryGroup',
      summary: 'Delete a group',
      description: 'Deletes the group with its memberships and role assignments; its members lose what they held through it.',
      security: write,
      params,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => groups.remove(callerOf(r, 'environment'), r.params.groupId),
  });
  app.get(`${base}/:groupId/members`, {
    schema: {
      tags,
      operationId: 'listDirectoryGroupMembers',
      summary: 'List the members of a group',
      description: 'Lists the users of the group, oldest first, one page at a time.',
      security: read,
      params,
      querystring: PageQuery,
      response: { 200: MembersList, ...errorResponses(404) },
    },
    handler: (r) => groups.members(callerOf(r, 'environment'), r.params.groupId, r.query),
  });
  app.put(`${base}/:groupId/members/:userId`, {
    schema: {
      tags,
      operationId: 'addDirectoryGroupMember',
      summary: 'Add a user to a group',
      description:
        'Adds a user of the environment to the group: 201 when added, 200 when it already was a member (nothing changes then).' +
        ' 403 `directory.user_protected` when the user is an operator of the service and the caller does not hold every scope it holds.',
      security: write,
      params: MemberParams,
      body: AddMemberBody,
      response: { 200: GroupResponse, 201: GroupResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { added, group } = await groups.addMember(callerOf(r, 'environment'), r.params.groupId, r.params.userId);
      return reply.status(added ? 201 : 200).send({ group });
    },
  });
  app.delete(`${base}/:groupId/members/:userId`, {
    schema: {
      tags,
      operationId: 'removeDirectoryGroupMember',
      summary: 'Remove a user from a group',
      description:
        'Removes the user from the group. 404 `group.member_not_found` when it is not a member.' +
        ' 403 `directory.user_protected` when the user is an operator of the service and the caller does not hold every scope it holds.',
      security: write,
      params: MemberParams,
      response: { 200: GroupResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ group: await groups.removeMember(callerOf(r, 'environment'), r.params.groupId, r.params.userId) }),
  });
}
