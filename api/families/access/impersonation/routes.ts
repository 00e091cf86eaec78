import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  EnvironmentScopeParams,
  GrantParams,
  GrantResponse,
  GrantsList,
  GrantsQuery,
  IssueGrantBody,
  IssuedGrantResponse,
  RevokeGrantBody,
  SaveSettingsBody,
  SettingsResponse,
} from './schemas.ts';
import type { ImpersonationService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Impersonation'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/impersonation';
const read = requires('impersonation:read');
const write = requires('impersonation:write');

export function impersonationRoutes(app: App, grants: ImpersonationService) {
  app.get(`${base}/grants`, {
    schema: {
      tags,
      operationId: 'listImpersonationGrants',
      summary: 'List the impersonation grants of an environment',
      description:
        'Lists active, expired and revoked impersonation grants, newest first: who (actor) acted as whom (userId), why, when and until when. Filters: status, userId, actorId.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: GrantsQuery,
      response: { 200: GrantsList, ...errorResponses(404) },
    },
    handler: (r) => grants.list(callerOf(r, 'environment'), r.query),
  });
  app.post(`${base}/grants`, {
    schema: {
      tags,
      operationId: 'issueImpersonationGrant',
      summary: 'Grant the caller to act as a user for a limited time (the token is shown once)',
      description:
        "Issues an impersonation grant to the calling operator and its token: a JWT (`typ` impersonation+jwt) whose `sub` is the user and `act.sub` the operator, signed with the service's keys (verifiable against /.well-known/jwks.json), accepted by GET /v1/userinfo and POST /v1/oauth/introspect only. It lasts `durationSeconds`, at most the environment's maxDurationMinutes (400 naming durationSeconds above it). 400 when userId is not a user of the environment, 409 `impersonation_grant.user_inactive` for an inactive user.",
      security: write,
      params: EnvironmentScopeParams,
      body: IssueGrantBody,
      response: { 201: IssuedGrantResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await grants.issue(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/grants/:grantId`, {
    schema: {
      tags,
      operationId: 'getImpersonationGrant',
      summary: 'Get an impersonation grant',
      description: 'Returns one impersonation grant of the environment with its status (active, expired, revoked); never its token.',
      security: read,
      params: GrantParams,
      response: { 200: GrantResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ grant: await grants.find(callerOf(r, 'environment'), r.params.grantId) }),
  });
  app.post(`${base}/grants/:grantId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeImpersonationGrant',
      summary: 'Revoke an impersonation grant',
      description:
        'Revokes an active grant: its token is refused from the next request on every instance, and introspection answers it inactive. The body may be left out. Revoking a revoked grant returns it unchanged; an expired one is 409 `impersonation_grant.expired`.',
      security: write,
      params: GrantParams,
      body: RevokeGrantBody,
      response: { 200: GrantResponse, ...errorResponses(404, 409) },
    },
    // The body may be left out (Fastify sees null): it is then `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    handler: async (r) => ({ grant: await grants.revoke(callerOf(r, 'environment'), r.params.grantId, r.body.reason) }),
  });
  app.get(`${base}/settings`, {
    schema: {
      tags,
      operationId: 'getImpersonationSettings',
      summary: 'Get the impersonation settings of an environment',
      description: 'Returns the longest grant operators may issue (maxDurationMinutes, 15 by default) and whether grants notify the user (false by default).',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: SettingsResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ settings: await grants.settings(callerOf(r, 'environment')) }),
  });
  app.put(`${base}/settings`, {
    schema: {
      tags,
      operationId: 'saveImpersonationSettings',
      summary: 'Save the impersonation settings of an environment',
      description:
        'Sets the longest grant (maxDurationMinutes, 1..1440) and whether impersonation.grant.created carries what a notification to the user needs (notifyUser). Grants already issued keep their expiry.',
      security: write,
      params: EnvironmentScopeParams,
      body: SaveSettingsBody,
      response: { 200: SettingsResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ settings: await grants.saveSettings(callerOf(r, 'environment'), r.body) }),
  });
}
