import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreateServiceAccountBody,
  CreateServiceAccountResponse,
  OrganizationParams,
  ServiceAccountParams,
  ServiceAccountResponse,
  ServiceAccountsList,
  UpdateServiceAccountBody,
} from '../credentials-schemas.ts';
import type { ServiceAccountService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Service accounts'];
const base = '/v1/organizations/:organizationId/service-accounts';

export function serviceAccountRoutes(app: App, accounts: ServiceAccountService) {
  app.get(base, {
    schema: {
      tags,
      summary: 'List service accounts of an organization',
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
      summary: 'Create a service account (the client secret is shown once)',
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
      summary: 'Get a service account',
      security: requires('service-accounts:read'),
      params: ServiceAccountParams,
      response: { 200: ServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ serviceAccount: await accounts.get(callerOf(request, 'organization'), request.params.serviceAccountId) }),
  });

  app.patch(`${base}/:serviceAccountId`, {
    schema: {
      tags,
      summary: 'Update a service account; active=false refuses its tokens on the next request',
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
      summary: 'Replace the client secret (the new one is shown once)',
      security: requires('service-accounts:write'),
      params: ServiceAccountParams,
      response: { 200: CreateServiceAccountResponse, ...errorResponses(404) },
    },
    handler: (request) => accounts.rotateSecret(callerOf(request, 'organization'), request.params.serviceAccountId),
  });

  app.delete(`${base}/:serviceAccountId`, {
    schema: {
      tags,
      summary: 'Delete a service account',
      security: requires('service-accounts:write'),
      params: ServiceAccountParams,
      response: { 200: ServiceAccountResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ serviceAccount: await accounts.remove(callerOf(request, 'organization'), request.params.serviceAccountId) }),
  });
}
