// Events of impersonation grants, assembled into db/event-catalog.ts. Loose objects: a field added later never
// breaks a reader of the catalog or an emitter.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { isoTimestamp, uuid } from '../../shared/rows.ts';
import { ImpersonationGrant, ImpersonationSettings } from './rows.ts';

const party = z.looseObject({ type: z.string(), id: z.string().nullable() });

/** What a notification channel needs to tell the user (present when the environment's notifyUser is on). */
const notification = z.looseObject({
  userId: uuid,
  email: z.string().nullable(),
  operator: party,
  reason: z.string(),
  expiresAt: isoTimestamp,
});

const grant = z.looseObject({ grant: ImpersonationGrant });

export const IMPERSONATION_EVENTS = {
  'impersonation.grant.created': {
    description:
      'An operator was granted to act as a directory user until `grant.expiresAt`; `notification` (user, email, operator, reason, expiry) is present when the environment notifies users.',
    data: grant.extend({ notification: notification.optional() }),
  },
  'impersonation.grant.revoked': { description: 'An impersonation grant was revoked: its token is refused from the next request.', data: grant },
  'impersonation.grant.expired': { description: 'An impersonation grant reached its expiry and was marked expired.', data: grant },
  'impersonation.settings.updated': {
    description: 'The impersonation settings of an environment (longest grant, user notification) were changed.',
    data: z.looseObject({ settings: ImpersonationSettings }),
  },
  'impersonation.token.used': {
    description: 'A request was made with an impersonation token: the operator acted on behalf of the user.',
    data: z.looseObject({ grantId: uuid, userId: uuid, operator: party, method: z.string(), path: z.string(), statusCode: z.number().int() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
