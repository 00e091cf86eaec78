// Events of directory sessions. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { DirectorySession } from './rows.ts';

export const DIRECTORY_SESSION_EVENTS = {
  'session.revoked': {
    description: "A user's sign-in session was revoked: its refresh and access tokens are gone and its clients are logged out over the back channel.",
    data: z.looseObject({ session: DirectorySession }),
  },
  'session.back_channel_logout_failed': {
    description:
      'A client of a revoked session could not be logged out over the back channel: it refused the logout token, or stayed unreachable (or answered 408, 429 or 5xx) through every attempt of the schedule. The revocation stands.',
    data: z.looseObject({
      sessionId: uuid.describe('The revoked session'),
      userId: z.string().describe("The logout token's sub: the session's user"),
      clientId: z.string(),
      attempts: z.number().int().describe('Attempts made'),
      statusCode: z.number().int().nullable().describe('The status of the last answer; null when there was none'),
      error: z.string().describe('What the last attempt got, in a phrase (a network error, a timeout, `answered 400`)'),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
