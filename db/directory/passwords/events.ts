// Events of directory passwords, assembled into db/event-catalog.ts. Neither a password nor a link's token is ever
// in an event.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const PASSWORD_EVENTS = {
  'user.password_set': {
    description:
      'A directory user’s password was set: by an administrator through the directory API (`via: api`) or by the user through a one-time link (`via: link`).',
    data: z.looseObject({ userId: uuid, via: z.enum(['api', 'link']) }),
  },
  'user.password_link_created': {
    description: 'A one-time link by which a directory user sets a password was issued; the link itself is shown only to the caller.',
    data: z.looseObject({ userId: uuid, linkId: uuid, expiresAt: isoTimestamp }),
  },
  'user.password_changed': {
    description:
      'A signed-in user changed their own password at `POST {issuer}/account/password` with an access token the environment issued to them (`clientId`: the client the token was issued to). `signedOutOtherSessions`: the user asked to end their other sessions (each also emits `session.revoked`).',
    data: z.looseObject({ userId: uuid, clientId: z.string(), signedOutOtherSessions: z.boolean() }),
  },
  'user.password_change_failed': {
    description:
      'A signed-in user’s password change was refused because the current password they gave is wrong (`reason: wrong_password`); after 5 within 15 minutes the user’s changes are refused with 429 for the rest of the window.',
    data: z.looseObject({ userId: uuid, clientId: z.string(), reason: z.enum(['wrong_password']), ip: z.string().nullable() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
