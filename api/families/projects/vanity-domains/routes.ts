// An environment's vanity domains: register, list, get, re-check now, delete; and the HTTP-01 answers the CA fetches.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { CreateVanityDomainBody, EnvironmentScopeParams, VanityDomainParams, VanityDomainResponse, VanityDomainsResponse } from './schemas.ts';
import type { VanityDomainService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Vanity domains'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/vanity-domains';
const read = requires('vanity-domains:read');
const write = requires('vanity-domains:write');

export function vanityDomainRoutes(app: App, domains: VanityDomainService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listVanityDomains',
      summary: 'List the vanity domains of an environment',
      description: 'Lists the environment’s vanity domains with their status, the DNS records each needs and the facts of its certificate.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: PageQuery,
      response: { 200: VanityDomainsResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createVanityDomain',
      summary: 'Register a vanity domain and start certifying it',
      description:
        'Answers the DNS records to create (`dnsRecords`: a CNAME to the service’s host, VANITY_CNAME_TARGET, and a TXT ownership token). ' +
        'Its process checks them every VANITY_DNS_INTERVAL (`pending_dns`), then obtains a certificate over ACME with the HTTP-01 challenge ' +
        '(`issuing`), serves the host over TLS (`active`) and renews it VANITY_RENEW_BEFORE before expiry (`renewing`); `failed` carries ' +
        '`failureReason`. 409 `vanity_domain.already_exists` when the host is registered already. Emits `vanity_domain.created`.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateVanityDomainBody,
      response: { 201: VanityDomainResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await domains.create(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:vanityDomainId`, {
    schema: {
      tags,
      operationId: 'getVanityDomain',
      summary: 'Get a vanity domain',
      description: 'The domain’s status (and `failureReason`), its DNS records and its certificate’s facts (never the key).',
      security: read,
      params: VanityDomainParams,
      response: { 200: VanityDomainResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.get(callerOf(r, 'environment'), r.params.vanityDomainId),
  });
  app.post(`${base}/:vanityDomainId/check`, {
    schema: {
      tags,
      operationId: 'checkVanityDomain',
      summary: 'Check a vanity domain now',
      description:
        'Wakes the domain’s process to look at it now: a `failed` domain goes back to `pending_dns` (its DNS give-up time starts again). ' +
        'Answers the domain as it is; follow its status with GET. Emits `vanity_domain.rechecked`.',
      security: write,
      params: VanityDomainParams,
      response: { 200: VanityDomainResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.recheck(callerOf(r, 'environment'), r.params.vanityDomainId),
  });
  app.delete(`${base}/:vanityDomainId`, {
    schema: {
      tags,
      operationId: 'deleteVanityDomain',
      summary: 'Remove a vanity domain',
      description:
        'Stops serving the host at once and answers its last state; its process then revokes the certificate at the CA and deletes the ' +
        'domain (`vanity_domain.removed`). Emits `vanity_domain.deleted`.',
      security: write,
      params: VanityDomainParams,
      response: { 200: VanityDomainResponse, ...errorResponses(404) },
    },
    handler: (r) => domains.remove(callerOf(r, 'environment'), r.params.vanityDomainId),
  });
}
