// Events of vanity domains (custom auth hosts with DNS records and ACME certificates), spread into the event catalog.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { VanityDomain } from './rows.ts';

const domain = z.looseObject({ domain: VanityDomain });

export const VANITY_DOMAIN_EVENTS = {
  'vanity_domain.created': { description: 'A vanity domain was registered for an environment; its process waits for the DNS records.', data: domain },
  'vanity_domain.rechecked': {
    description: 'A re-check of a vanity domain was asked for: a failed domain goes back to `pending_dns` and its process checks at once.',
    data: domain,
  },
  'vanity_domain.dns_verified': { description: 'The CNAME and TXT records of a vanity domain were found; its certificate is being issued.', data: domain },
  'vanity_domain.certificate_issued': {
    description: 'A certificate was obtained over ACME for a vanity domain: the host is served over TLS (status `active`).',
    data: domain,
  },
  'vanity_domain.renewal_started': {
    description: 'The certificate of a vanity domain is due for renewal (VANITY_RENEW_BEFORE before expiry): status `renewing`, still served.',
    data: domain,
  },
  'vanity_domain.certificate_renewed': { description: 'The certificate of a vanity domain was renewed before its expiry.', data: domain },
  'vanity_domain.failed': {
    description: 'A vanity domain failed (DNS records not found in time, or the CA refused the certificate); `reason` says why.',
    data: domain.extend({ reason: z.string().describe('Why it failed, in a sentence') }),
  },
  'vanity_domain.deleted': {
    description: 'Removal of a vanity domain was asked for: it is no longer served, and its process revokes the certificate and deletes it.',
    data: domain,
  },
  'vanity_domain.removed': {
    description: 'A vanity domain is gone: its certificate was revoked at the CA (when it had one) and its record deleted.',
    data: domain.extend({ certificateRevoked: z.boolean().describe('Whether a certificate was revoked at the CA') }),
  },
} as const satisfies Record<string, EventTypeEntry>;
