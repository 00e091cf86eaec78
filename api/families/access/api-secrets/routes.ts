import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery, SuccessIdResponse } from '../../../common/schemas.ts';
import {
  ApiSecretParams,
  ApiSecretResponse,
  ApiSecretsList,
  ApiSecretWithValueResponse,
  CreateApiSecretBody,
  EnvironmentScopeParams,
  RotateApiSecretBody,
  UpdateApiSecretBody,
} from './schemas.ts';
import type { ApiSecretService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['API secrets'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/api-secrets';
const read = requires('api-secrets:read');
const write = requires('api-secrets:write');

export function apiSecretRoutes(app: App, secrets: ApiSecretService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listApiSecrets',
      summary: 'List the API secrets of an environment',
      description: 'Lists the environment API secrets, oldest first, one page at a time; a secret shows its prefix and last 4 characters only.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: ApiSecretsList, ...errorResponses(404) },
    },
    handler: (r) => secrets.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createApiSecret',
      summary: 'Create an API secret (the secret is shown once)',
      description:
        'Creates an environment API secret (adenv_…) for the given purposes: `authzen` (AuthZEN at /access/v1) and `mcp` (the trust-store runtime). The secret selects this environment; it is shown only in this response. 400 for an expiry in the past.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateApiSecretBody,
      response: { 201: ApiSecretWithValueResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await secrets.create(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:secretId`, {
    schema: {
      tags,
      operationId: 'getApiSecret',
      summary: 'Get an API secret',
      description: 'Returns one API secret of the environment with its state: active, expiry, last use, rotation grace and revocation.',
      security: read,
      params: ApiSecretParams,
      response: { 200: ApiSecretResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ apiSecret: await secrets.find(callerOf(r, 'environment'), r.params.secretId) }),
  });
  app.patch(`${base}/:secretId`, {
    schema: {
      tags,
      operationId: 'updateApiSecret',
      summary: 'Rename or describe an API secret',
      description: 'Changes the name or description of an API secret; its value, purposes and expiry do not change.',
      security: write,
      params: ApiSecretParams,
      body: UpdateApiSecretBody,
      response: { 200: ApiSecretResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ apiSecret: await secrets.update(callerOf(r, 'environment'), r.params.secretId, r.body) }),
  });
  app.delete(`${base}/:secretId`, {
    schema: {
      tags,
      operationId: 'deleteApiSecret',
      summary: 'Delete an API secret',
      description: 'Deletes an API secret; it is refused from the next request, on every instance.',
      security: write,
      params: ApiSecretParams,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => secrets.remove(callerOf(r, 'environment'), r.params.secretId),
  });
  app.post(`${base}/:secretId/rotate`, {
    schema: {
      tags,
      operationId: 'rotateApiSecret',
      summary: 'Rotate an API secret (the new secret is shown once; the previous one works during the grace period)',
      description:
        'Gives the API secret a new value, shown only in this response; the body may be left out. The previous value keeps working until `previousSecretExpiresAt`: `gracePeriodSeconds` from now (0: refused at once; API_SECRET_ROTATION_GRACE, 24 h, when absent); a value rotated out earlier stops at once. 409 `api_secret.revoked` or `api_secret.expired`.',
      security: write,
      params: ApiSecretParams,
      body: RotateApiSecretBody,
      response: { 200: ApiSecretWithValueResponse, ...errorResponses(404, 409) },
    },
    // The body may be left out (Fastify sees null): it is then `{}`, the default grace period.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    handler: (r) => secrets.rotate(callerOf(r, 'environment'), r.params.secretId, r.body.gracePeriodSeconds),
  });
  app.post(`${base}/:secretId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeApiSecret',
      summary: 'Revoke an API secret',
      description:
        'Revokes an API secret: it is refused from the next request, on every instance, and cannot be rotated again. Revoking a revoked secret returns it unchanged.',
      security: write,
      params: ApiSecretParams,
      response: { 200: ApiSecretResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ apiSecret: await secrets.revoke(callerOf(r, 'environment'), r.params.secretId) }),
  });
}
