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
} as const satisfies Record<string, EventTypeEntry>;
