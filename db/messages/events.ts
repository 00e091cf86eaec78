// Events of the messages sent through an environment's providers (db/event-catalog.ts). Never the content.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { MessageRecord } from './rows.ts';

const message = z.looseObject({ message: MessageRecord });

export const MESSAGE_EVENTS = {
  'message.queued': { description: 'A message was queued for its environment’s providers (its `message-send` process started).', data: message },
  'message.sent': { description: 'A provider accepted a message: `provider` and `providerMessageId` say which and its id.', data: message },
  'message.failed_over': {
    description: 'A provider refused a message or stayed unreachable through its retries; the next provider (`to`) is tried.',
    data: z.looseObject({ message: MessageRecord, from: z.string(), to: z.string(), error: z.string() }),
  },
  'message.failed': { description: 'Every provider refused a message, or stayed unreachable: it is given up (`lastError`).', data: message },
  'message.bounced': { description: 'The vendor reported that a sent message bounced (e.g. Postmark’s bounce webhook).', data: message },
} as const satisfies Record<string, EventTypeEntry>;
