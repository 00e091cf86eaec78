// Events of codes texted by the sign-in pages (the SMS second factor and its enrolment), assembled into
// db/event-catalog.ts. Failures reuse `user.sign_in_failed` with `secondFactor: sms_code`; an enrolled phone is
// `user.mfa_enrolled` with `factor: phone`. No event holds a code or a whole phone number: a hint (`…` and the last
// 4 digits) and the number's country.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

const Purpose = z.enum(['enrolment', 'second_factor']);

export const SMS_CODE_EVENTS = {
  'user.sms_code_sent': {
    description:
      'A 6-digit code was texted to a directory user at sign-in: to their verified phone number as the second factor (`purpose: second_factor`, “Text me a code”), or to a number they are adding (`purpose: enrolment`). `expiresAt`: when the code stops working.',
    data: z.looseObject({
      userId: uuid,
      clientId: z.string(),
      phoneNumberHint: z.string(),
      country: z.string().nullable(),
      purpose: Purpose,
      expiresAt: z.string(),
      ip: z.string().nullable(),
    }),
  },
  'sms.rate_limited': {
    description:
      'The sign-in pages refused to text a code because the environment’s SMS rate (`smsRateLimit` of the MFA settings) was reached: `limit` `environment` (codes in the last hour, in all) or `number` (to this number). The page answered 429; the refusal opens or adds to a `sign_in.sms_pumping` threat (`threatId`).',
    data: z.looseObject({
      environmentId: uuid,
      userId: uuid,
      clientId: z.string(),
      limit: z.enum(['environment', 'number']),
      maxPerHour: z.number().int(),
      phoneNumberHint: z.string(),
      country: z.string().nullable(),
      purpose: Purpose,
      ip: z.string().nullable(),
      threatId: uuid,
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
