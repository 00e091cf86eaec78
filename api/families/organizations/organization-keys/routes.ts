import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { OrganizationParams } from '../../../common/credentials.ts';
import {
  CreateOrganizationKeyBody,
  OrganizationKeyParams,
  OrganizationKeyResponse,
  OrganizationKeysResponse,
  OrganizationKeyWithTokenResponse,
  UpdateOrganizationKeyTenantsBody,
} from './schemas.ts';
import type { OrganizationKeyService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Organization keys'];
const base = '/v1/organizations/:organizationId/keys';

const description =
  'An organization key (adok_…) is a bearer token of its organization, limited to all of its tenants or to listed ones. ' +
  'It carries every scope but credential management (service-accounts, organization-keys, personal-access-tokens, signing-keys) and ' +
  'organization changes (organizations:read only), bounded by the scopes of whoever created it.';

export function organizationKeyRoutes(app: App, keys: OrganizationKeyService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listOrganizationKeys',
      summary: 'List the keys of an organization',
      description: 'Lists the keys of an organization, revoked and expired ones included, each with its prefix only and the tenants it reaches.',
      security: requires('organization-keys:read'),
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: OrganizationKeysResponse, ...errorResponses(404) },
    },
    handler: (request) => keys.list(callerOf(request, 'organization'), request.query),
  });

  app.post(base, {
    schema: {
      tags,
      operationId: 'createOrganizationKey',
      summary: 'Create an organization key (the full key is shown once)',
      description,
      security: requires('organization-keys:write'),
      params: OrganizationParams,
      body: CreateOrganizationKeyBody,
      response: { 201: OrganizationKeyWithTokenResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => reply.status(201).send(await keys.create(callerOf(request, 'organization'), request.body)),
  });

  app.get(`${base}/:keyId`, {
    schema: {
      tags,
      operationId: 'getOrganizationKey',
      summary: 'Get an organization key',
      description: 'Returns one key of the organization with the tenants it reaches, never the key itself. 404 when it is out of reach.',
      security: requires('organization-keys:read'),
      params: OrganizationKeyParams,
      response: { 200: OrganizationKeyResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ key: await keys.get(callerOf(request, 'organization'), request.params.keyId) }),
  });

  app.delete(`${base}/:keyId`, {
    schema: {
      tags,
      operationId: 'revokeOrganizationKey',
      summary: 'Revoke an organization key; it is refused from the next request',
      description: 'Revokes the key and returns it; it is refused from the next request, on every instance.',
      security: requires('organization-keys:write'),
      params: OrganizationKeyParams,
      response: { 200: OrganizationKeyResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ key: await keys.revoke(callerOf(request, 'organization'), request.params.keyId) }),
  });

  app.put(`${base}/:keyId/tenants`, {
    schema: {
      tags,
      operationId: 'updateOrganizationKeyTenants',
      summary: 'Set the tenants a key reaches (all, or listed ones); applies from the next request',
      description:
        'Makes the key reach every tenant of the organization (allTenants) or only the listed ones, which must be tenants of the organization (400 otherwise).',
      security: requires('organization-keys:write'),
      params: OrganizationKeyParams,
      body: UpdateOrganizationKeyTenantsBody,
      response: { 200: OrganizationKeyResponse, ...errorResponses(404) },
    },
    handler: async (request) => ({ key: await keys.updateTenants(callerOf(request, 'organization'), request.params.keyId, request.body) }),
  });
}
