// Events of tenants, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { Tenant } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const tenant = z.looseObject({ tenant: Tenant });

export const TENANT_EVENTS = {
  'tenant.created': { description: 'A tenant was created.', data: tenant },
  'tenant.updated': {
    description: 'A tenant was changed; `previous` holds the former values of the changed fields.',
    data: tenant.extend({ previous: z.record(z.string(), z.unknown()) }),
  },
  'tenant.deleted': { description: 'A tenant and everything in it was deleted; `tenant` is its last state.', data: tenant },
} as const satisfies Record<string, EventTypeEntry>;
