import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreateServiceAccountBody,
  CreateServiceAccountResponse,
  ServiceAccountParams,
  ServiceAccountResponse,
  ServiceAccountsList,
  UpdateServiceAccountBody,
} from './schemas.ts';
import { OrganizationParams } from '../../../common/credentials.ts';
import type { ServiceAccountService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Service accounts'];
const base = '/v1/organizations/:organizationId/service-accounts';

export function serviceAccountRoutes(app: App, accounts: ServiceAccountService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listServiceAccounts',
      summary: 'List service accounts of an organization',
      description:
        "Lists the service accounts of one of the caller's organizations, one page at a time, without their secrets. 404 when the organization is not the caller's.",
      security: requires('service-accounts:read'),
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: ServiceAccountsList, ...errorResponses(404) },
    },
    handler: (request) => accounts.list(callerOf(request, 'organization'), request.query),
  });

  app.post(base, {
    schema: {
      tags,
      operationId: 'createServiceAccount',
      summary: 'Create a service account (the client secret is shown once)',
      description:
        'Creates a service account with the given scopes (none by default) and returns its client secret (adsa_…) only in this response. 400 `service_account.scope_not_held` for scopes the caller does not hold.',
      security: requires('service-accounts:write'),
      params: OrganizationParams,
      body: CreateServiceAccountBody,
      response: { 201: CreateServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => reply.status(201).send(await accounts.create(callerOf(request, 'organization'), request.body)),
  });

  app.get(`${base}/:serviceAccountId`, {
    schema: {
      tags,
      operationId: 'getServiceAccount',
      summary: 'Get a service account',
      description: "Returns one service account of the organization, without its secret. 404 when it or its organization is out of the caller's reach.",
      security: requires('service-accounts:read'),
      params: ServiceAccountParams,
      response: { 200: ServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ serviceAccount: await accounts.get(callerOf(request, 'organization'), request.params.serviceAccountId) }),
  });

  app.patch(`${base}/:serviceAccountId`, {
    schema: {
      tags,
      operationId: 'updateServiceAccount',
      summary: 'Update a service account; active=false refuses its tokens on the next request',
      description:
        'Changes the name, description, scopes or active flag; a deactivated account and its tokens are refused from the next request, on every instance. 400 `service_account.scope_not_held` for scopes the caller does not hold.',
      security: requires('service-accounts:write'),
      params: ServiceAccountParams,
      body: UpdateServiceAccountBody,
      response: { 200: ServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({
      serviceAccount: await accounts.update(callerOf(request, 'organization'), request.params.serviceAccountId, request.body),
    }),
  });

  app.post(`${base}/:serviceAccountId/rotate-secret`, {
    schema: {
      tags,
      operationId: 'rotateServiceAccountSecret',
      summary: 'Replace the client secret (the new one is shown once)',
      description:
        'Replaces the client secret at once: the previous one no longer gets tokens, while tokens already issued stay valid until they expire. The new secret is shown only in this response.',
      security: requires('service-accounts:write'),
      params: ServiceAccountParams,
      response: { 200: CreateServiceAccountResponse, ...errorResponses(404) },
    },
    handler: (request) => accounts.rotateSecret(callerOf(request, 'organization'), request.params.serviceAccountId),
  });

  app.delete(`${base}/:serviceAccountId`, {
    schema: {
      tags,
      operationId: 'deleteServiceAccount',
      summary: 'Delete a service account',
      description: 'Deletes the service account and returns it; its tokens are refused from the next request, on every instance.',
      security: requires('service-accounts:write'),
      params: ServiceAccountParams,
      response: { 200: ServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ serviceAccount: await accounts.remove(callerOf(request, 'organization'), request.params.serviceAccountId) }),
  });
}
