// Events of an environment's SMS providers, assembled into the event catalog (db/event-catalog.ts).
// A provider shows only masked hints of its secrets; a test names the recipient's country, not the number.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';
import { EnvironmentSmsProvider } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const provider = z.looseObject({ environmentId: uuid, provider: EnvironmentSmsProvider });

export const SMS_PROVIDER_EVENTS = {
  'sms_provider.saved': {
    description: 'An SMS provider of an environment was created (`created` true) or changed.',
    data: provider.extend({ created: z.boolean() }),
  },
  'sms_provider.deleted': { description: 'An SMS provider was removed from an environment; `provider` is its last state.', data: provider },
  'sms_provider.tested': {
    description: 'A test SMS was sent through a provider: `success`, the vendor `messageId` or its `error`, and the recipient country.',
    data: provider.extend({
      success: z.boolean(),
      messageId: z.string().nullable(),
      error: z.string().nullable(),
      recipientCountry: z.string().nullable(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
