// Events of the protection policies (one per policy kind), assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

const Settings = z.record(z.string(), z.unknown());
const updated = (title: string) => ({
  description: `An environment’s ${title} was replaced: \`settings\` is what is in force now, \`previous\` what was (null before the first save: off).`,
  data: z.looseObject({ environmentId: uuid, settings: Settings, previous: Settings.nullable() }),
});

export const PROTECTION_POLICY_EVENTS = {
  'breached_password_policy.updated': updated('breached password policy'),
  'brute_force_policy.updated': updated('brute force policy'),
  'bot_detection_policy.updated': updated('bot detection policy'),
  'rate_limit_policy.updated': updated('rate limit policy'),
  'device_risk_policy.updated': updated('device risk policy'),
  'environment_restrictions.updated': updated('sign-up restrictions'),
} as const satisfies Record<string, EventTypeEntry>;
