// Events of the protection policies (one per policy kind), assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

const Settings = z.record(z.string(), z.unknown());

export const PROTECTION_POLICIES = ['breached_password', 'brute_force', 'bot_detection', 'rate_limit', 'device_risk', 'restrictions', 'sms_pumping'] as const;
export type ProtectionPolicy = (typeof PROTECTION_POLICIES)[number];
export const SIGN_IN_FLOWS = ['sign_in', 'sign_up', 'password_reset', 'password_change', 'second_factor'] as const;
export type SignInFlow = (typeof SIGN_IN_FLOWS)[number];
export type ProtectionOutcome = 'blocked' | 'challenged' | 'stepped_up' | 'warned';

const Decision = z.looseObject({
  policy: z.enum(PROTECTION_POLICIES),
  flow: z.enum(SIGN_IN_FLOWS),
  reason: z.string(),
  userId: uuid.nullable(),
  login: z.string().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  threatId: uuid.nullable(),
});
const decision = (what: string) => ({
  description: `A sign-in protection ${what}: \`policy\` names it, \`reason\` says why; \`threatId\` is the threat it opened or added to, if any.`,
  data: Decision,
});
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
  'protection.blocked': decision('refused an attempt'),
  'protection.challenged': decision('asked for a challenge (the bot challenge) before going on'),
  'protection.stepped_up': decision('asked for a second factor or an emailed code before going on'),
  'protection.warned': decision('let an attempt through with a notice (a breached password in `warn` mode)'),
} as const satisfies Record<string, EventTypeEntry>;

// The brute-force policy's own event (its lockouts are `protection.blocked`, reason `locked_out`).
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
