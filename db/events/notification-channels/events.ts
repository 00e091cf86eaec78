// Events of notification channels, assembled into the event catalog (db/event-catalog.ts).
// A channel shows only masked hints of its secrets.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { NotificationChannel } from '../webhooks/rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const channel = z.looseObject({ channel: NotificationChannel });

export const NOTIFICATION_CHANNEL_EVENTS = {
  'notification_channel.created': { description: 'A notification channel was created.', data: channel },
  'notification_channel.updated': { description: 'A notification channel was changed.', data: channel },
  'notification_channel.deleted': { description: 'A notification channel was deleted; `channel` is its last state.', data: channel },
  'notification_channel.tested': { description: 'A test notification was sent through a channel.', data: channel },
} as const satisfies Record<string, EventTypeEntry>;
