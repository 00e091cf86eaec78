import { z } from 'zod';
import { PORTAL_INTENTS, PortalLink } from '../../../../db/organizations/admin-portal/rows.ts';
import { OrganizationParams } from '../../../common/credentials.ts';
import { pageOf } from '../../../common/schemas.ts';

export { PortalLink, OrganizationParams };

export const DEFAULT_OPEN_SECONDS = 300;
export const DEFAULT_SESSION_SECONDS = 3600;

export const CreatePortalLinkBody = z
  .strictObject({
    tenantId: z.uuid().describe('A tenant of the organization the portal works in'),
    environmentId: z
      .uuid()
      .nullable()
      .optional()
      .describe('An environment of the tenant; required for the `sso` and `directory_sync` intents, and limits a `log_streams` endpoint to it'),
    intent: z
      .enum(PORTAL_INTENTS)
      .describe(
        'sso: configure an SSO connection; directory_sync: create a SCIM or HRIS token; domain_verification: add and verify a domain; audit_logs: read the audit log; log_streams: add a webhook endpoint',
      ),
    returnUrl: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
      .max(2000)
      .nullable()
      .optional()
      .describe('Where the portal sends the admin when done: https, or http on a loopback host'),
    expiresInSeconds: z.number().int().min(30).max(604_800).optional().describe(`How long the link may be opened (default ${DEFAULT_OPEN_SECONDS} s)`),
    sessionLifetimeSeconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .optional()
      .describe(`How long the portal session opened by the link lasts (default ${DEFAULT_SESSION_SECONDS} s)`),
  })
  .meta({ id: 'CreatePortalLinkRequest' });
export type CreatePortalLinkBody = z.infer<typeof CreatePortalLinkBody>;

export const PortalLinkParams = OrganizationParams.extend({ linkId: z.uuid() });

export const PortalLinkResponse = z.object({ portalLink: PortalLink }).meta({ id: 'PortalLinkResponse' });
export const PortalLinkWithUrlResponse = z
  .object({
    portalLink: PortalLink,
    url: z.string().describe('The link to give the admin (it carries the token): shown only in this response, opens once'),
  })
  .meta({ id: 'PortalLinkWithUrlResponse' });
export const PortalLinksList = pageOf('portalLinks', PortalLink).meta({ id: 'PortalLinksList' });
