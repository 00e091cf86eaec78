// An Admin Portal link as the API shows it: never its token or hash, only a display prefix and hint.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const PORTAL_INTENTS = ['sso', 'directory_sync', 'domain_verification', 'audit_logs', 'log_streams'] as const;
export type PortalIntent = (typeof PORTAL_INTENTS)[number];

export const PORTAL_LINK_STATES = ['pending', 'opened', 'expired', 'revoked'] as const;

export const PortalLink = z
  .object({
    id: uuid,
    organizationId: uuid,
    tenantId: uuid,
    environmentId: uuid.nullable(),
    intent: z.enum(PORTAL_INTENTS).describe('What the portal lets the admin set up'),
    returnUrl: z.string().nullable().describe('Where the portal sends the admin when done'),
    prefix: z.string().describe('The first characters of the link token, to recognise it'),
    hint: z.string().describe('The last 4 characters of the link token'),
    status: z.enum(PORTAL_LINK_STATES).describe('pending: may be opened; opened: used (single use); expired: not opened in time; revoked: refused'),
    expiresAt: isoTimestamp.describe('Until when the link may be opened'),
    sessionLifetimeSeconds: z.number().int().describe('How long the portal session opened by the link lasts'),
    openedAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'PortalLink' });
export type PortalLink = z.infer<typeof PortalLink>;

/** The portal session of an opened link, with what the portal needs of its link. */
export const PortalSession = z.object({
  id: uuid,
  linkId: uuid,
  organizationId: uuid,
  tenantId: uuid,
  environmentId: uuid.nullable(),
  intent: z.enum(PORTAL_INTENTS),
  returnUrl: z.string().nullable(),
  expiresAt: isoTimestamp,
  active: z.boolean().describe('Not expired and its link not revoked'),
  ssoTest: z.record(z.string(), z.string()).nullable(),
});
export type PortalSession = z.infer<typeof PortalSession>;
