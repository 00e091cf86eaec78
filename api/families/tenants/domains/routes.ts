import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  CreateTenantDomainBody,
  CreateTenantDomainResponse,
  RetryTenantDomainVerificationResponse,
  TenantDomainParams,
  TenantDomainResponse,
  TenantDomainsResponse,
} from './schemas.ts';
import { TenantParams } from '../tenants/schemas.ts';
import type { TenantDomainService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Tenants'];
const base = '/v1/tenants/:tenantId/domains';
const read = requires('tenants:read');
const write = requires('tenants:write');

export function tenantDomainRoutes(app: App, domains: TenantDomainService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listTenantDomains',
      summary: 'List the domains of a tenant',
      description: 'Lists the domains of a tenant with their verification state and the TXT record each one needs.',
      security: read,
      params: TenantParams,
      querystring: PageQuery,
      response: { 200: TenantDomainsResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.list(callerOf(r, 'tenant'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createTenantDomain',
      summary: 'Add a domain to a tenant and start verifying it',
      description:
        'Publish `validationToken` as a TXT record at `validationSubDomain`. The service checks on a backoff schedule ' +
        '(DOMAIN_VERIFICATION_INTERVALS) until the record appears or DOMAIN_VERIFICATION_GIVE_UP passes (then it emits ' +
        'tenant.domain.verification_failed and the domain stays unverified; POST …/verify can still verify it). ' +
        'Only one tenant can hold a domain verified.',
      security: write,
      params: TenantParams,
      body: CreateTenantDomainBody,
      response: { 201: CreateTenantDomainResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ domain: await domains.create(callerOf(r, 'tenant'), r.body) }),
  });
  app.delete(`${base}/:domainId`, {
    schema: {
      tags,
      operationId: 'deleteTenantDomain',
      summary: 'Remove a domain from a tenant',
      description: 'Removes a domain from the tenant, stops verifying it and returns it.',
      security: write,
      params: TenantDomainParams,
      response: { 200: TenantDomainResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ domain: await domains.remove(callerOf(r, 'tenant'), r.params.domainId) }),
  });
  app.post(`${base}/:domainId/verify`, {
    schema: {
      tags,
      operationId: 'verifyTenantDomain',
      summary: 'Check the TXT record of a domain now',
      description: '`success` tells whether the domain is verified after the check; `message` says what was found.',
      security: write,
      params: TenantDomainParams,
      response: { 200: RetryTenantDomainVerificationResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.verify(callerOf(r, 'tenant'), r.params.domainId),
  });
}
