// Events of the client allowlist of an environment, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';

export const OIDC_CLIENT_ALLOWLIST_EVENTS = {
  'oidc_client_allowlist.updated': {
    description: 'The client allowlist of an environment changed; `clientIds` is the whole list after the change (empty: every client may sign users in).',
    data: z.looseObject({ environmentId: z.uuid(), clientIds: z.array(z.string()) }),
  },
} as const satisfies Record<string, EventTypeEntry>;
