// Events of an environment's email providers, assembled into the event catalog (db/event-catalog.ts).
// A provider shows only masked hints of its secrets.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { EnvironmentEmailProvider } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const provider = z.looseObject({ provider: EnvironmentEmailProvider });

export const EMAIL_PROVIDER_EVENTS = {
  'email_provider.saved': { description: 'An email provider of an environment was created or changed.', data: provider },
  'email_provider.activated': {
    description: 'An email provider became the active one of its environment; `deactivated` names the one it replaced, if any.',
    data: z.looseObject({ provider: EnvironmentEmailProvider, deactivated: z.string().nullable() }),
  },
  'email_provider.deleted': { description: 'An email provider was deleted; `provider` is its last state.', data: provider },
  'email_provider.tested': {
    description: 'A test message was sent through an email provider: `success`, and the vendor’s `messageId` or its `error`.',
    data: z.looseObject({
      provider: EnvironmentEmailProvider,
      success: z.boolean(),
      messageId: z.string().nullable(),
      error: z.string().nullable(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
