import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreatePersonalAccessTokenBody,
  CreatePersonalAccessTokenResponse,
  PersonalAccessTokensList,
  RevokePersonalAccessTokenResponse,
  TokenParams,
} from '../credentials-schemas.ts';
import type { PersonalAccessTokenService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Personal access tokens'];

export function personalAccessTokenRoutes(app: App, tokens: PersonalAccessTokenService) {
  app.get('/v1/personal-access-tokens', {
    schema: {
      tags,
      summary: "List the caller's personal access tokens",
      security: requires('personal-access-tokens:read'),
      querystring: PageQuery,
      response: { 200: PersonalAccessTokensList, ...errorResponses() },
    },
    handler: (request) => tokens.list(callerOf(request), request.query),
  });

  app.post('/v1/personal-access-tokens', {
    schema: {
      tags,
      summary: 'Create a personal access token (the full token is shown once)',
      security: requires('personal-access-tokens:write'),
      body: CreatePersonalAccessTokenBody,
      response: { 201: CreatePersonalAccessTokenResponse, ...errorResponses() },
    },
    handler: async (request, reply) => reply.status(201).send(await tokens.create(callerOf(request), request.body)),
  });

  app.post('/v1/personal-access-tokens/:tokenId/revoke', {
    schema: {
      tags,
      summary: 'Revoke a personal access token',
      security: requires('personal-access-tokens:write'),
      params: TokenParams,
      response: { 200: RevokePersonalAccessTokenResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ token: await tokens.revoke(callerOf(request), request.params.tokenId) }),
  });
}
