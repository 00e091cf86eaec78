// Events of the process outbox: what operators do to it. No payload of a process appears in them.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';

const entry = z.looseObject({
  entry: z.looseObject({
    id: z.number().int(),
    action: z.string(),
    kind: z.string().nullable(),
    processId: z.string(),
  }),
});

export const PROCESS_EVENTS = {
  'process_outbox.entry_retried': {
    description: 'An operator made a dead or pending process outbox entry due again (its attempts reset).',
    data: entry,
  },
} as const satisfies Record<string, EventTypeEntry>;
