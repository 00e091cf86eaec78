import { BEARER, callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  AcceptInvitationBody,
  AcceptInvitationResponse,
  CreateInvitationBody,
  InvitationParams,
  JoinOrganizationBody,
  JoinOrganizationResponse,
  OrganizationInvitationResponse,
  OrganizationInvitationsResponse,
  ResendInvitationBody,
  SendInviteBody,
  SendInviteResponse,
} from './schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import type { InvitationAcceptanceService } from './acceptance.ts';
import type { OrganizationInvitationService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Organizations'];
const base = '/v1/organizations/:organizationId/invitations';
// Accepting is done by the invitee, who is not a member yet: any valid user token will do, whatever its scopes.
const anyUser = [{ [BEARER]: [] }];

export function organizationInvitationRoutes(app: App, invitations: OrganizationInvitationService, acceptance: InvitationAcceptanceService) {
  app.get(base, {
    schema: {
      tags,
      summary: 'List the invitations of an organization',
      security: requires('organizations:read'),
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: OrganizationInvitationsResponse, ...errorResponses(404) },
    },
    handler: (request) => invitations.list(callerOf(request, 'organization'), request.query),
  });

  app.post(base, {
    schema: {
      tags,
      summary: 'Invite an email into an organization (token and join code are shown once)',
      security: requires('organizations:write'),
      params: OrganizationParams,
      body: CreateInvitationBody,
      response: { 201: OrganizationInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await invitations.create(callerOf(request, 'organization'), request.body)),
  });

  app.delete(`${base}/:invitationId`, {
    schema: {
      tags,
      summary: 'Revoke a pending invitation',
      security: requires('organizations:write'),
      params: InvitationParams,
      response: { 200: OrganizationInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => invitations.revoke(callerOf(request, 'organization'), request.params.invitationId),
  });

  app.post(`${base}/:invitationId/resend`, {
    schema: {
      tags,
      summary: 'Resend a pending invitation: a new token, code and expiry (the previous ones stop working)',
      security: requires('organizations:write'),
      params: InvitationParams,
      body: ResendInvitationBody,
      response: { 200: OrganizationInvitationResponse, ...errorResponses(404, 409) },
    },
    // The body is optional: none means the default expiry.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    handler: (request) => invitations.resend(callerOf(request, 'organization'), request.params.invitationId, request.body),
  });

  app.post('/v1/organizations/:organizationId/invites', {
    schema: {
      tags,
      summary: 'Invite an operator by email: finds or creates the user and adds a pending membership',
      security: requires('organizations:write'),
      params: OrganizationParams,
      body: SendInviteBody,
      response: { 201: SendInviteResponse, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await invitations.sendInvite(callerOf(request, 'organization'), request.body)),
  });

  app.post('/v1/organizations/invitations/accept', {
    schema: {
      tags,
      summary: "Accept an invitation with its token (the caller's verified email must be the invited one)",
      security: anyUser,
      body: AcceptInvitationBody,
      response: { 200: AcceptInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => acceptance.accept(callerOf(request), request.body.token),
  });

  app.post('/v1/organizations/join', {
    schema: {
      tags,
      summary: "Join an organization with an invitation code (the caller's verified email must be the invited one)",
      security: anyUser,
      body: JoinOrganizationBody,
      response: { 200: JoinOrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => acceptance.join(callerOf(request), request.body.invitationCode),
  });
}
