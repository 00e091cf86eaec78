import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreatePersonalAccessTokenBody,
  CreatePersonalAccessTokenResponse,
  PersonalAccessTokensList,
  RevokePersonalAccessTokenResponse,
  TokenParams,
} from './schemas.ts';
import type { PersonalAccessTokenService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Personal access tokens'];

export function personalAccessTokenRoutes(app: App, tokens: PersonalAccessTokenService) {
  app.get('/v1/personal-access-tokens', {
    schema: {
      tags,
      operationId: 'listPersonalAccessTokens',
      summary: "List the caller's personal access tokens",
      description:
        "Lists the calling user's personal access tokens, one page at a time, with their prefix only. 403 `auth.user_required` for a token that is not a user's.",
      security: requires('personal-access-tokens:read'),
      querystring: PageQuery,
      response: { 200: PersonalAccessTokensList, ...errorResponses() },
    },
    handler: (request) => tokens.list(callerOf(request), request.query),
  });

  app.post('/v1/personal-access-tokens', {
    schema: {
      tags,
      operationId: 'createPersonalAccessToken',
      summary: 'Create a personal access token (the full token is shown once)',
      description:
        'Creates a personal access token (adpat_…) for the calling user with the given scopes (default: every scope the user holds) and optional expiry; the full token is shown only in this response. 400 for scopes the user does not hold or an expiry in the past.',
      security: requires('personal-access-tokens:write'),
      body: CreatePersonalAccessTokenBody,
      response: { 201: CreatePersonalAccessTokenResponse, ...errorResponses() },
    },
    handler: async (request, reply) => reply.status(201).send(await tokens.create(callerOf(request), request.body)),
  });

  app.post('/v1/personal-access-tokens/:tokenId/revoke', {
    schema: {
      tags,
      operationId: 'revokePersonalAccessToken',
      summary: 'Revoke a personal access token',
      description: "Revokes one of the caller's personal access tokens; it is refused from the next request. 404 when the token is not the caller's.",
      security: requires('personal-access-tokens:write'),
      params: TokenParams,
      response: { 200: RevokePersonalAccessTokenResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ token: await tokens.revoke(callerOf(request), request.params.tokenId) }),
  });
}
