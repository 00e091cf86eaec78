// Widget tokens of an environment: issue (the token shown once), list, get, revoke.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  EnvironmentScopeParams,
  IssuedWidgetTokenResponse,
  IssueWidgetTokenBody,
  WidgetTokenParams,
  WidgetTokenResponse,
  WidgetTokensList,
  WidgetTokensQuery,
} from './schemas.ts';
import type { WidgetTokenService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Widgets'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/widgets/tokens';
const read = requires('widgets:read');
const write = requires('widgets:write');

export function widgetTokenRoutes(app: App, tokens: WidgetTokenService) {
  app.post(base, {
    schema: {
      tags,
      operationId: 'issueWidgetToken',
      summary: 'Issue a widget token for a user (the token is shown once)',
      description:
        "Issues a short-lived token with which an embedded widget (GET /v1/widgets/widgets.js) acts as `userId`: a JWT (`typ` widget+jwt) signed with the environment's OpenID signing key, verifiable against `{issuer}/jwks`, audience `{issuer}/widgets`. " +
        'It is accepted by the widget API (/v1/widgets/…) only, within its kind and scopes, from its origins (CORS); any other route refuses it with 403. ' +
        'Lifetime `lifetimeMinutes` (default 5, at most 60). 400 naming the field for a scope outside the kind, a bad origin, a userId that is no user of the environment, or a missing or foreign organizationId; 409 `widget_token.user_inactive`.',
      security: write,
      params: EnvironmentScopeParams,
      body: IssueWidgetTokenBody,
      response: { 201: IssuedWidgetTokenResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await tokens.issue(callerOf(r, 'environment'), r.body)),
  });
  app.get(base, {
    schema: {
      tags,
      operationId: 'listWidgetTokens',
      summary: 'List the widget tokens of an environment',
      description:
        'Lists issued widget tokens, newest first, with their status (active, expired, revoked); never the tokens themselves. Filters: userId, kind.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: WidgetTokensQuery,
      response: { 200: WidgetTokensList, ...errorResponses(404) },
    },
    handler: (r) => tokens.list(callerOf(r, 'environment'), r.query),
  });
  app.get(`${base}/:tokenId`, {
    schema: {
      tags,
      operationId: 'getWidgetToken',
      summary: 'Get a widget token',
      description: 'Returns one widget token of the environment (kind, scopes, origins, expiry, status); never the token.',
      security: read,
      params: WidgetTokenParams,
      response: { 200: WidgetTokenResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ widgetToken: await tokens.find(callerOf(r, 'environment'), r.params.tokenId) }),
  });
  app.post(`${base}/:tokenId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeWidgetToken',
      summary: 'Revoke a widget token',
      description: 'Revokes the token by its id (`jti`): the widget API refuses it from its next request (401). Revoking a revoked token returns it unchanged.',
      security: write,
      params: WidgetTokenParams,
      response: { 200: WidgetTokenResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ widgetToken: await tokens.revoke(callerOf(r, 'environment'), r.params.tokenId) }),
  });
}
