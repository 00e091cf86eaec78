import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery, SuccessIdResponse } from '../../../common/schemas.ts';
import {
  CreateProvisioningTokenBody,
  EnvironmentScopeParams,
  ProvisioningTokenParams,
  ProvisioningTokenResponse,
  ProvisioningTokensList,
  ProvisioningTokenWithValueResponse,
  RotateProvisioningTokenBody,
} from './schemas.ts';
import type { ProvisioningTokenService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Provisioning tokens'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/provisioning-tokens';
const read = requires('provisioning-tokens:read');
const write = requires('provisioning-tokens:write');

export function provisioningTokenRoutes(app: App, tokens: ProvisioningTokenService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listProvisioningTokens',
      summary: 'List the provisioning tokens of an environment',
      description: 'Lists the SCIM and HRIS provisioning tokens, oldest first, one page at a time; a token shows its prefix and last 4 characters only.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: ProvisioningTokensList, ...errorResponses(404) },
    },
    handler: (r) => tokens.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createProvisioningToken',
      summary: 'Create a provisioning token (the token is shown once)',
      description:
        'Creates a provisioning token of a kind: `scim` (adscim_…, for SCIM 2.0 clients such as Entra ID and Okta at /v1/scim/v2) or `hris` (adhris_…, for HRIS at /v1/hris/v1). The token selects this environment; it is shown only in this response. 400 for an expiry in the past. ' +
        "The service's operators (users holding management scopes) are not this environment's customers' users: a provisioning token never lists, shows or changes them (404).",
      security: write,
      params: EnvironmentScopeParams,
      body: CreateProvisioningTokenBody,
      response: { 201: ProvisioningTokenWithValueResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await tokens.create(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:tokenId`, {
    schema: {
      tags,
      operationId: 'getProvisioningToken',
      summary: 'Get a provisioning token',
      description: 'Returns one provisioning token of the environment with its state: active, expiry, last use, rotation grace and revocation.',
      security: read,
      params: ProvisioningTokenParams,
      response: { 200: ProvisioningTokenResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ provisioningToken: await tokens.find(callerOf(r, 'environment'), r.params.tokenId) }),
  });
  app.delete(`${base}/:tokenId`, {
    schema: {
      tags,
      operationId: 'deleteProvisioningToken',
      summary: 'Delete a provisioning token',
      description: 'Deletes a provisioning token; it is refused from the next request, on every instance. Provisioned users and groups stay.',
      security: write,
      params: ProvisioningTokenParams,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => tokens.remove(callerOf(r, 'environment'), r.params.tokenId),
  });
  app.post(`${base}/:tokenId/rotate`, {
    schema: {
      tags,
      operationId: 'rotateProvisioningToken',
      summary: 'Rotate a provisioning token (the new token is shown once; the previous one works during the grace period)',
      description:
        'Gives the provisioning token a new value, shown only in this response; the body may be left out. The previous value keeps working until `previousTokenExpiresAt`: `gracePeriodSeconds` from now (0: refused at once; API_SECRET_ROTATION_GRACE, 24 h, when absent); a value rotated out earlier stops at once. 409 `provisioning_token.revoked` or `provisioning_token.expired`.',
      security: write,
      params: ProvisioningTokenParams,
      body: RotateProvisioningTokenBody,
      response: { 200: ProvisioningTokenWithValueResponse, ...errorResponses(404, 409) },
    },
    // The body may be left out (Fastify sees null): it is then `{}`, the default grace period.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    handler: (r) => tokens.rotate(callerOf(r, 'environment'), r.params.tokenId, r.body.gracePeriodSeconds),
  });
  app.post(`${base}/:tokenId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeProvisioningToken',
      summary: 'Revoke a provisioning token',
      description:
        'Revokes a provisioning token: it is refused from the next request, on every instance, and cannot be rotated again. Revoking a revoked token returns it unchanged.',
      security: write,
      params: ProvisioningTokenParams,
      response: { 200: ProvisioningTokenResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ provisioningToken: await tokens.revoke(callerOf(r, 'environment'), r.params.tokenId) }),
  });
}
