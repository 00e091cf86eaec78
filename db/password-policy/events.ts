// Events of the password policy, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';
import { PasswordPolicyRow } from './queries.ts';

const Settings = z.looseObject(PasswordPolicyRow.omit({ id: true, createdAt: true, updatedAt: true }).shape);

export const PASSWORD_POLICY_EVENTS = {
  'password_policy.updated': {
    description:
      'An environment’s password policy was replaced: `settings` is what is in force now, `previous` what was (the default, 8 characters, no class required, password sign-in on, before the first save).',
    data: z.looseObject({ environmentId: uuid, settings: Settings, previous: Settings }),
  },
} as const satisfies Record<string, EventTypeEntry>;
