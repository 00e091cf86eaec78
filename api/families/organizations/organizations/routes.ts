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
      summary: 'List the organizations the caller belongs to',
      security: requires('organizations:read'),
      querystring: PageQuery,
      response: { 200: OrganizationsList, ...errorResponses() },
    },
    handler: (request) => organizations.list(callerOf(request), request.query),
  });

  app.post('/v1/organizations', {
    schema: {
      tags,
      summary: 'Create an organization over tenants the caller reaches; the creating user becomes its owner (users only)',
      security: requires('organizations:write'),
      body: CreateOrganizationBody,
      response: { 201: OrganizationResponse, ...errorResponses() },
    },
    handler: async (request, reply) => reply.status(201).send({ organization: await organizations.create(callerOf(request), request.body) }),
  });

  app.get(one, {
    schema: {
      tags,
      summary: 'Get an organization',
      security: requires('organizations:read'),
      params: OrganizationParams,
      response: { 200: OrganizationResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ organization: await organizations.get(callerOf(request, 'organization')) }),
  });

  app.patch(one, {
    schema: {
      tags,
      summary: 'Update an organization',
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
      summary: 'Delete an organization (refused while it owns tenants)',
      security: requires('organizations:write'),
      params: OrganizationParams,
      response: { 200: OrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ organization: await organizations.remove(callerOf(request, 'organization')) }),
  });

  app.get(`${one}/members`, {
    schema: {
      tags,
      summary: 'List the members of an organization (pending invitees included)',
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
      summary: 'Activate or deactivate a member; it takes effect on their next request',
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
      summary: 'Remove a member from an organization',
      security: requires('organizations:write'),
      params: MemberParams,
      response: { 200: OrganizationMemberResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => members.remove(callerOf(request, 'organization'), request.params.memberId),
  });
}
