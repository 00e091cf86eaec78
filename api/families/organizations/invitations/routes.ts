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
      operationId: 'listOrganizationInvitations',
      summary: 'List the invitations of an organization',
      description: 'Lists the invitations of an organization in every status, one page at a time; tokens and join codes are never shown here.',
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
      operationId: 'createOrganizationInvitation',
      summary: 'Invite an email into an organization (token and join code are shown once)',
      description:
        'Invites an email with a role and an expiry (default 7 days); the invitation token and join code are shown only in this response. 409 when an invitation for the email is pending or a member already has it.',
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
      operationId: 'revokeOrganizationInvitation',
      summary: 'Revoke a pending invitation',
      description: 'Revokes a pending invitation: its token and join code stop working. 409 when it is no longer pending.',
      security: requires('organizations:write'),
      params: InvitationParams,
      response: { 200: OrganizationInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => invitations.revoke(callerOf(request, 'organization'), request.params.invitationId),
  });

  app.post(`${base}/:invitationId/resend`, {
    schema: {
      tags,
      operationId: 'resendOrganizationInvitation',
      summary: 'Resend a pending invitation: a new token, code and expiry (the previous ones stop working)',
      description:
        'Issues a new token, join code and expiry for a pending invitation, shown only in this response; the previous ones stop working. 409 when it is no longer pending.',
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
      operationId: 'sendOrganizationInvite',
      summary: 'Invite an operator by email (an account is made for an email that has none); they become a member when they accept',
      description:
        'Creates an invitation of the organization for the email, acceptable between validFrom and validUntil; the answer is the same whether or not the email already has an account. 409 `already_member` when an active member of this organization has the email.',
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
      operationId: 'acceptOrganizationInvitation',
      summary: "Accept an invitation with its token (the caller's verified email must be the invited one)",
      description:
        'The invitee becomes a member with the invitation token. Needs a user token with the invited email verified (403 otherwise); 404 for an unknown token, 409 when the invitation is not pending or not valid yet.',
      security: anyUser,
      body: AcceptInvitationBody,
      response: { 200: AcceptInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => acceptance.accept(callerOf(request), request.body.token),
  });

  app.post('/v1/organizations/join', {
    schema: {
      tags,
      operationId: 'joinOrganization',
      summary: "Join an organization with an invitation code (the caller's verified email must be the invited one)",
      description:
        'The invitee becomes a member with the join code of an invitation. Needs a user token with the invited email verified (403 otherwise); 404 for an unknown code, 409 when the invitation is not pending.',
      security: anyUser,
      body: JoinOrganizationBody,
      response: { 200: JoinOrganizationResponse, ...errorResponses(404, 409) },
    },
    handler: (request) => acceptance.join(callerOf(request), request.body.invitationCode),
  });
}
