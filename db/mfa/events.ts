// Events of second factors (TOTP, recovery codes) and of the MFA policy, assembled into db/event-catalog.ts. No
// secret, code or recovery code is ever in an event.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

const Factor = z.enum(['totp']);
/** `phone`: a verified phone number texted a code at sign-in (0046). */
const EnrolledFactor = z.enum(['totp', 'phone']);

// `emailCodeSecondFactor` came with 0034: events recorded before it do not have it. `rememberDeviceSeconds` went
// with 0038 (to the session config, `session_config.updated`): only events recorded before it have it.
// `smsSecondFactor` and `smsRateLimit` came with 0046.
const Policy = z.looseObject({
  mode: z.string(),
  requiredRoleKeys: z.array(z.string()),
  rememberDeviceSeconds: z.number().nullable().optional(),
  emailCodeSecondFactor: z.boolean().optional(),
  smsSecondFactor: z.boolean().optional(),
  smsRateLimit: z.looseObject({ perEnvironmentPerHour: z.number(), perNumberPerHour: z.number() }).optional(),
});

export const MFA_FAILURE_REASONS = ['invalid', 'replayed', 'not_enrolled'] as const;

export const MFA_EVENTS = {
  'user.mfa_enrolment_started': {
    description: 'A directory user began enrolling a TOTP authenticator (an unconfirmed factor; `replacedFactorId`: the unconfirmed one it replaced).',
    data: z.looseObject({ userId: uuid, factor: Factor, factorId: uuid, replacedFactorId: uuid.nullable() }),
  },
  'user.mfa_enrolled': {
    description:
      'A directory user confirmed a second factor: a TOTP authenticator with a code from it (10 new recovery codes were shown to them once), or (`factor: phone`) a phone number with the code texted to it (`phoneNumberHint`: `…` and its last 4 digits; `country`: its ISO 3166 code).',
    data: z.looseObject({
      userId: uuid,
      factor: EnrolledFactor,
      factorId: uuid,
      phoneNumberHint: z.string().optional(),
      country: z.string().nullable().optional(),
    }),
  },
  'user.mfa_failed': {
    description:
      'A second-factor check failed. `factor`: `totp`, `recovery_code` or `remember_device`; `stage`: `enrolment` (confirming an authenticator) or `verification` (signing in); ' +
      '`reason`: `invalid` (wrong, malformed or expired code, or a tampered remembered-device value), `replayed` (a TOTP code of a step already used, or a recovery code used before), ' +
      '`not_enrolled` (no confirmed factor, or no pending enrolment with that id).',
    data: z.looseObject({
      userId: uuid,
      factor: z.enum(['totp', 'recovery_code', 'remember_device']),
      stage: z.enum(['enrolment', 'verification']),
      reason: z.enum(MFA_FAILURE_REASONS),
      ip: z.string().nullable(),
    }),
  },
  'user.recovery_code_used': {
    description: 'A directory user signed in with one of their recovery codes (each works once); `remaining`: how many unused codes they have left.',
    data: z.looseObject({ userId: uuid, remaining: z.number().int().min(0) }),
  },
  'user.recovery_codes_regenerated': {
    description: 'A directory user replaced their recovery codes with a new set (shown to them once); the earlier codes no longer work.',
    data: z.looseObject({ userId: uuid, count: z.number().int() }),
  },
  'user.mfa_removed': {
    description:
      'An administrator removed a directory user’s TOTP factor (`confirmed`: whether it was enrolled or an enrolment in progress) or phone factor (`factor: phone`, always confirmed); removing an enrolled TOTP factor removes the user’s recovery codes too (`recoveryCodesRemoved`).',
    data: z.looseObject({ userId: uuid, factor: EnrolledFactor, factorId: uuid, confirmed: z.boolean(), recoveryCodesRemoved: z.number().int() }),
  },
  'mfa_settings.updated': {
    description: 'An environment’s MFA policy was replaced: `settings` is what is in force now, `previous` what was.',
    data: z.looseObject({ environmentId: uuid, settings: Policy, previous: Policy }),
  },
} as const satisfies Record<string, EventTypeEntry>;
