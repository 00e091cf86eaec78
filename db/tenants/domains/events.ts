// Events of tenant domains (DNS TXT ownership verification), spread into the event catalog.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { TenantDomain } from './rows.ts';

const domain = z.looseObject({ domain: TenantDomain });

export const DOMAIN_EVENTS = {
  'tenant.domain.created': { description: 'A domain was added to a tenant; its verification process started.', data: domain },
  'tenant.domain.deleted': { description: 'A domain was removed from a tenant; `domain` is its last state.', data: domain },
  'tenant.domain.verified': {
    description: 'The TXT record of a tenant domain was found with its token: the tenant now holds the domain verified.',
    data: domain,
  },
  'tenant.domain.verification_failed': {
    description:
      'The verification process gave up on a tenant domain (no matching TXT record in time); it stays unverified and can still be verified on request.',
    data: domain.extend({ reason: z.string().describe('Why verification failed, in a sentence') }),
  },
} as const satisfies Record<string, EventTypeEntry>;
