import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreateOrganizationBody,
  MemberParams,
  OrganizationMemberResponse,
  OrganizationMembersResponse,
  OrganizationParams,
  OrganizationResponse,
  OrganizationsList,
  SetMemberActiveBody,
  UpdateOrganizationBody,
} from './schemas.ts';
import type { OrganizationMemberService } from '../members/service.ts';
import type { OrganizationService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Organizations'];
const one = '/v1/organizations/:organizationId';

export function organizationRoutes(app: App, organizations: OrganizationService, members: OrganizationMemberService) {
  app.get('/v1/organizations', {
    schema: {
      tags,
      operationId: 'listOrganizations',
      summary: 'List the organizations the caller belongs to',
      description: 'Lists the organizations the caller belongs to, one page at a time, with their total: a service account lists its own and those it created.',
      security: requires('organizations:read'),
      querystring: PageQuery,
      response: { 200: OrganizationsList, ...errorResponses() },
    },
    handler: (request) => organizations.list(callerOf(request), request.query),
  });

  app.post('/v1/organizations', {
    schema: {
      tags,
      operationId: 'createOrganization',
      summary: 'Create an organization over tenants the caller reaches; the creating user becomes its owner',
      description:
        'Creates an organization linked to the given tenants, which the caller must reach (400 `organization.tenant_unreachable` otherwise). ' +
        'A user becomes its owner. A service account of the operator (bootstrap) organization may create one too: it is not made a member, ' +
        'but keeps reach over what it created (read, update, delete, link tenants) with the same credentials. ' +
        'Other principals get 403 `auth.user_required`, naming who can.',
      security: requires('organizations:write'),
      body: CreateOrganizationBody,
      response: { 201: OrganizationResponse, ...errorResponses() },
    },
    handler: async (request, reply) => reply.status(201).send({ organization: await organizations.create(callerOf(request), request.body) }),
  });

  app.get(one, {
    schema: {
      tags,
      operationId: 'getOrganization',
      summary: 'Get an organization',
      description: 'Returns one organization of the caller. 404 when the caller does not belong to it, whether it exists or not.',
      security: requires('organizations:read'),
      params: OrganizationParams,
      response: { 200: OrganizationResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ organization: await organizations.get(callerOf(request, 'organization')) }),
  });

  app.patch(one, {
    schema: {
      tags,
      operationId: 'updateOrganization',
      summary: 'Update an organization',
      description: 'Changes the name, description or billing email of an organization of the caller. 404 when the caller does not belong to it.',
      security: requires('organizations:write'),
      params: OrganizationParams,
      body: UpdateOrganizationBody,
      response: { 200: OrganizationResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ organization: await organizations.update(callerOf(request, 'organization'), request.body) }),
  });

  app.delete(one, {
    schema: {
      tags,
      operationId: 'deleteOrganization',
      summary: 'Delete an organization (refused while it owns tenants)',
      description:
        'Deletes an organization of the caller and returns it. 409 `organization.has_tenants` while tenants still belong to it: transfer, unlink or delete them first.',
      security: requires('organizations:write'),
      params: OrganizationParams,
      response: { 200: OrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await organizations.remove(callerOf(request, 'organization')) }),
  });

  app.get(`${one}/members`, {
    schema: {
      tags,
      operationId: 'listOrganizationMembers',
      summary: 'List the members of an organization (pending invitees included)',
      description: 'Lists the members of an organization with their role and user, pending invitees included (joinedAt null), one page at a time.',
      security: requires('organizations:read'),
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: OrganizationMembersResponse, ...errorResponses(404) },
    },
    handler: (request) => members.list(callerOf(request, 'organization'), request.query),
  });

  app.patch(`${one}/members/:memberId`, {
    schema: {
      tags,
      operationId: 'setOrganizationMemberActive',
      summary: 'Activate or deactivate a member; it takes effect on their next request',
      description:
        "Suspends (active=false) or restores a membership; a suspended member is refused in the organization from their next request. 409 for the organization's last active owner or a member who has not joined yet.",
      security: requires('organizations:write'),
      params: MemberParams,
      body: SetMemberActiveBody,
      response: { 200: OrganizationMemberResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => members.setActive(callerOf(request, 'organization'), request.params.memberId, request.body.active),
  });

  app.delete(`${one}/members/:memberId`, {
    schema: {
      tags,
      operationId: 'removeOrganizationMember',
      summary: 'Remove a member from an organization',
      description:
        "Removes a member, who loses access to the organization from their next request. 409 `organization_member.last_owner` for the organization's last active owner.",
      security: requires('organizations:write'),
      params: MemberParams,
      response: { 200: OrganizationMemberResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => members.remove(callerOf(request, 'organization'), request.params.memberId),
  });
}
