// The widget API of the organization_members, api_keys and audit_log widgets. Members and the audit log are those of
// the token's organization; API keys are the user's own personal access tokens (adpat_…), created with no management
// scope: a widget never mints more than it was given.
import { errorResponses } from '../../../common/schemas.ts';
import { OrganizationMembersResponse } from '../../organizations/organizations/schemas.ts';
import { OrganizationInvitationResponse, OrganizationInvitationsResponse } from '../../organizations/invitations/schemas.ts';
import {
  CreatePersonalAccessTokenResponse,
  PersonalAccessTokensList,
  RevokePersonalAccessTokenResponse,
} from '../../identity/personal-access-tokens/schemas.ts';
import { AuditLogsPage, AuditLogsQuery } from '../../events/audit-logs/schemas.ts';
import { InvitationParams, KeyParams, PageQuery, WidgetApiKeyBody, WidgetInvitationBody } from './api-schemas.ts';
import { AS_USER, WIDGET_CONFIG } from './user-routes.ts';
import { widgetCallerOf, type WidgetGuard } from './widget-auth.ts';
import type { WidgetServices } from './widget-services.ts';
import type { App } from '../../../types.ts';

const tags = ['Widgets'];
/** The invitee receives the token and join code by mail; the widget never shows them. */
const withoutSecrets = <T extends { invitation: object }>(r: T) => ({ ...r, invitation: { ...r.invitation, token: null, invitationCode: null } });

export function widgetOrganizationRoutes(app: App, guard: WidgetGuard, s: WidgetServices) {
  const caller = (r: Parameters<typeof widgetCallerOf>[0]) => widgetCallerOf(r) as ReturnType<typeof widgetCallerOf> & { scope: { organizationId: string } };
  app.get('/v1/widgets/members', {
    config: WIDGET_CONFIG,
    preValidation: guard('organization_members', 'members:read'),
    schema: {
      tags,
      operationId: 'widgetListMembers',
      summary: "Widget: the organization's members",
      description: `organization_members, members:read. ${AS_USER}`,
      querystring: PageQuery,
      response: { 200: OrganizationMembersResponse, ...errorResponses() },
    },
    handler: (r) => s.members.list(caller(r), r.query),
  });
  app.get('/v1/widgets/invitations', {
    config: WIDGET_CONFIG,
    preValidation: guard('organization_members', 'members:read'),
    schema: {
      tags,
      operationId: 'widgetListInvitations',
      summary: "Widget: the organization's invitations",
      description: `organization_members, members:read. Never a token or join code. ${AS_USER}`,
      querystring: PageQuery,
      response: { 200: OrganizationInvitationsResponse, ...errorResponses() },
    },
    handler: (r) => s.invitations.list(caller(r), r.query),
  });
  app.post('/v1/widgets/invitations', {
    config: WIDGET_CONFIG,
    preValidation: guard('organization_members', 'members:write'),
    schema: {
      tags,
      operationId: 'widgetInviteMember',
      summary: 'Widget: invite someone into the organization',
      description: `organization_members, members:write. As POST /v1/organizations/{organizationId}/invitations (mailed to the invitee, expiry process, organization.invitation.created); the invitation's token and join code go to the invitee only. ${AS_USER}`,
      body: WidgetInvitationBody,
      response: { 201: OrganizationInvitationResponse, ...errorResponses(409) },
    },
    handler: async (r, reply) => reply.status(201).send(withoutSecrets(await s.invitations.create(caller(r), r.body))),
  });
  app.post('/v1/widgets/invitations/:invitationId/revoke', {
    config: WIDGET_CONFIG,
    preValidation: guard('organization_members', 'members:write'),
    schema: {
      tags,
      operationId: 'widgetRevokeInvitation',
      summary: 'Widget: revoke a pending invitation',
      description: `organization_members, members:write. Emits organization.invitation.revoked. ${AS_USER}`,
      params: InvitationParams,
      response: { 200: OrganizationInvitationResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => withoutSecrets(await s.invitations.revoke(caller(r), r.params.invitationId)),
  });
  app.get('/v1/widgets/api-keys', {
    config: WIDGET_CONFIG,
    preValidation: guard('api_keys', 'api_keys:read'),
    schema: {
      tags,
      operationId: 'widgetListApiKeys',
      summary: "Widget: the user's API keys",
      description: `api_keys, api_keys:read. The user's personal access tokens (never the tokens themselves). ${AS_USER}`,
      querystring: PageQuery,
      response: { 200: PersonalAccessTokensList, ...errorResponses() },
    },
    handler: (r) => s.apiKeys.list(widgetCallerOf(r), r.query),
  });
  app.post('/v1/widgets/api-keys', {
    config: WIDGET_CONFIG,
    preValidation: guard('api_keys', 'api_keys:write'),
    schema: {
      tags,
      operationId: 'widgetCreateApiKey',
      summary: 'Widget: create an API key (shown once)',
      description: `api_keys, api_keys:write. A personal access token of the user with no management scope, shown once; emits personal_access_token.created. ${AS_USER}`,
      body: WidgetApiKeyBody,
      response: { 201: CreatePersonalAccessTokenResponse, ...errorResponses() },
    },
    handler: async (r, reply) => reply.status(201).send(await s.apiKeys.create(widgetCallerOf(r), { ...r.body, scopes: [] })),
  });
  app.post('/v1/widgets/api-keys/:keyId/revoke', {
    config: WIDGET_CONFIG,
    preValidation: guard('api_keys', 'api_keys:write'),
    schema: {
      tags,
      operationId: 'widgetRevokeApiKey',
      summary: 'Widget: revoke an API key',
      description: `api_keys, api_keys:write. Emits personal_access_token.revoked. ${AS_USER}`,
      params: KeyParams,
      response: { 200: RevokePersonalAccessTokenResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ token: await s.apiKeys.revoke(widgetCallerOf(r), r.params.keyId) }),
  });
  app.get('/v1/widgets/audit-logs', {
    config: WIDGET_CONFIG,
    preValidation: guard('audit_log', 'audit_log:read'),
    schema: {
      tags,
      operationId: 'widgetListAuditLogs',
      summary: "Widget: the organization's audit log",
      description: `audit_log, audit_log:read. Newest first, with the filters of GET /v1/organizations/{organizationId}/audit-logs. ${AS_USER}`,
      querystring: AuditLogsQuery,
      response: { 200: AuditLogsPage, ...errorResponses() },
    },
    handler: (r) => s.auditLogs.list({ organizationId: caller(r).scope.organizationId }, r.query),
  });
}
