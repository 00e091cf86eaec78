// Events of connected apps. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { OidcClientGrant } from './rows.ts';

export const CONNECTED_APP_EVENTS = {
  'connected_app.revoked': {
    description: "A user's consent to a client (connected app) was revoked, with every code and token issued under it.",
    data: z.looseObject({ grant: OidcClientGrant }),
  },
} as const satisfies Record<string, EventTypeEntry>;
