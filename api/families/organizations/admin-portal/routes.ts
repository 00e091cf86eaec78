import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { CreatePortalLinkBody, OrganizationParams, PortalLinkParams, PortalLinkResponse, PortalLinksList, PortalLinkWithUrlResponse } from './schemas.ts';
import type { PortalLinkService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Admin Portal'];
const base = '/v1/organizations/:organizationId/portal-links';
const read = requires('admin-portal:read');
const write = requires('admin-portal:write');

export function portalLinkRoutes(app: App, links: PortalLinkService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listPortalLinks',
      summary: 'List the Admin Portal links of an organization',
      description: 'Lists the portal links, oldest first, one page at a time, with their state; a link shows its prefix and last 4 characters only.',
      security: read,
      params: OrganizationParams,
      querystring: PageQuery,
      response: { 200: PortalLinksList, ...errorResponses(404) },
    },
    handler: (r) => links.list(callerOf(r, 'organization'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createPortalLink',
      summary: 'Create an Admin Portal link (the URL is shown once)',
      description:
        'Creates a time-limited, single-use setup link for an admin of the organization: opening `url` (within `expiresInSeconds`, default 5 minutes) starts a portal session (default 1 hour) on the page of the `intent`, in the tenant (and environment) given. The URL carries the token (adpl_…): it is shown only in this response and stored as a hash. 400 naming the field for a tenant outside the organization, an environment outside the tenant, a missing environment for `sso` or `directory_sync`, or a return URL that is not https.',
      security: write,
      params: OrganizationParams,
      body: CreatePortalLinkBody,
      response: { 201: PortalLinkWithUrlResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await links.create(callerOf(r, 'organization'), r.body)),
  });
  app.get(`${base}/:linkId`, {
    schema: {
      tags,
      operationId: 'getPortalLink',
      summary: 'Get an Admin Portal link',
      description: 'Returns one portal link of the organization with its state: pending, opened, expired or revoked.',
      security: read,
      params: PortalLinkParams,
      response: { 200: PortalLinkResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ portalLink: await links.find(callerOf(r, 'organization'), r.params.linkId) }),
  });
  app.delete(`${base}/:linkId`, {
    schema: {
      tags,
      operationId: 'revokePortalLink',
      summary: 'Revoke an Admin Portal link',
      description:
        'Revokes a portal link: it can no longer be opened, and the portal session it opened ends at its next request. The link stays listed with `status: revoked`; revoking a revoked link returns it unchanged.',
      security: write,
      params: PortalLinkParams,
      response: { 200: PortalLinkResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ portalLink: await links.revoke(callerOf(r, 'organization'), r.params.linkId) }),
  });
}
