// The brute-force policy's own event (its lockouts are `protection.blocked`, reason `locked_out`: db/protections/events.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

export const BRUTE_FORCE_EVENTS = {
  'brute_force.unlocked': {
    description:
      'An operator ended a brute-force lockout before its time: `kind` `identifier` (the lower-cased identifier typed, `userId` the user it names, if any) or `ip` (an IP address), `key` what was locked.',
    data: z.looseObject({
      lockoutId: uuid,
      kind: z.enum(['identifier', 'ip']),
      key: z.string(),
      userId: uuid.nullable(),
      failures: z.number(),
      lockedUntil: z.string(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
