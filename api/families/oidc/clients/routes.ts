import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  DeleteOidcClientResponse,
  EnvironmentScopeParams,
  OidcClientMutationResponse,
  OidcClientParams,
  OidcClientSecretResponse,
  OidcClientsResponse,
  RegisterOidcClientBody,
  UpdateOidcClientBody,
} from './schemas.ts';
import type { OidcClientService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['OIDC clients'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/oidc/clients';
const read = requires('oidc-clients:read');
const write = requires('oidc-clients:write');

export function oidcClientRoutes(app: App, clients: OidcClientService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listOidcClients',
      summary: 'List the OIDC clients of an environment',
      description: 'Lists the OIDC clients of the environment, oldest first, one page at a time. Secrets are never listed: `secretPrefix` only.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: OidcClientsResponse, ...errorResponses(404) },
    },
    handler: (r) => clients.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'registerOidcClient',
      summary: 'Register an OIDC client (a confidential client’s secret is shown once)',
      description:
        'Registers a relying party of the environment’s OpenID provider and returns its `clientId`; `clientSecret` (adoc_…) is in this response only, for clients that authenticate with a secret. `agentSignIn: true` registers an Agent Sign-In client: authorization_code only, PKCE enforced, no refresh token, at most 10 redirect URIs. 400 names the field a rule refuses.',
      security: write,
      params: EnvironmentScopeParams,
      body: RegisterOidcClientBody,
      response: { 201: OidcClientMutationResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await clients.register(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:clientId`, {
    schema: {
      tags,
      operationId: 'getOidcClient',
      summary: 'Get an OIDC client',
      description: 'Returns one OIDC client of the environment by its public `clientId`; never its secret.',
      security: read,
      params: OidcClientParams,
      response: { 200: OidcClientMutationResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ client: await clients.find(callerOf(r, 'environment'), r.params.clientId) }),
  });
  app.patch(`${base}/:clientId`, {
    schema: {
      tags,
      operationId: 'updateOidcClient',
      summary: 'Update an OIDC client',
      description:
        'Changes the fields given; the others stay. The result must satisfy every rule of registration (400 naming the field). Switching to an auth method that needs a secret answers the new `clientSecret` once; switching to none or private_key_jwt drops the secret.',
      security: write,
      params: OidcClientParams,
      body: UpdateOidcClientBody,
      response: { 200: OidcClientMutationResponse, ...errorResponses(404) },
    },
    handler: (r) => clients.update(callerOf(r, 'environment'), r.params.clientId, r.body),
  });
  app.delete(`${base}/:clientId`, {
    schema: {
      tags,
      operationId: 'deleteOidcClient',
      summary: 'Delete an OIDC client',
      description: 'Deletes the client: the provider of every instance refuses it from the next request.',
      security: write,
      params: OidcClientParams,
      response: { 200: DeleteOidcClientResponse, ...errorResponses(404) },
    },
    handler: (r) => clients.remove(callerOf(r, 'environment'), r.params.clientId),
  });
  app.post(`${base}/:clientId/secret`, {
    schema: {
      tags,
      operationId: 'rotateOidcClientSecret',
      summary: 'Rotate the secret of an OIDC client (the new secret is shown once; the old one stops at once)',
      description:
        'Gives the client a new secret, shown only in this response; the previous one is refused from the next request, on every instance. 409 `oidc_client.no_secret` for a client that authenticates with none or private_key_jwt.',
      security: write,
      params: OidcClientParams,
      response: { 200: OidcClientSecretResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => clients.rotateSecret(callerOf(r, 'environment'), r.params.clientId),
  });
}
