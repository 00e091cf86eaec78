// Events of organization keys and tenant seats, spread into the event catalog. No secret appears in them:
// a key shows only its display prefix, a seat never its join code.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { OrganizationKey } from './rows.ts';
import { TenantSeat } from '../../tenants/seats/rows.ts';

const key = z.looseObject({ key: OrganizationKey });
const seat = z.looseObject({ seat: TenantSeat });

export const ACCESS_EVENTS = {
  'organization_key.created': { description: 'An organization key was created.', data: key },
  'organization_key.revoked': { description: 'An organization key was revoked; it is refused from the next request.', data: key },
  'organization_key.tenants_updated': {
    description: 'The tenants an organization key reaches were changed; `previous` holds the former limit.',
    data: key.extend({ previous: z.looseObject({ allTenants: z.boolean(), tenantIds: z.array(uuid) }) }),
  },
  'tenant.invite.created': { description: 'An email was invited to a seat in a tenant (a pending seat with a join code).', data: seat },
  'tenant.seat.updated': {
    description: 'A tenant seat was changed (scopes, validity window or active); `previous` holds the former values of the changed fields.',
    data: seat.extend({ previous: z.record(z.string(), z.unknown()) }),
  },
  'tenant.seat.joined': { description: 'A user joined a tenant with an invitation code and now holds the seat.', data: seat },
} as const satisfies Record<string, EventTypeEntry>;
