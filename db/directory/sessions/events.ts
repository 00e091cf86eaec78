// Events of directory sessions. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { DirectorySession } from './rows.ts';

export const DIRECTORY_SESSION_EVENTS = {
  'session.revoked': {
    description: "A user's sign-in session was revoked: its refresh and access tokens are gone and its clients are logged out over the back channel.",
    data: z.looseObject({ session: DirectorySession }),
  },
} as const satisfies Record<string, EventTypeEntry>;
