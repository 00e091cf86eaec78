// Events of the email code sign-in factor (first or second), assembled into db/event-catalog.ts. Its sign-ins and
// failures reuse `user.signed_in` (amr `otp`, `email`) and `user.sign_in_failed` (db/oidc/sign-in/events.ts) with
// these reasons (and `secondFactor: email_code` for a second factor's).
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

/** Why an email code or magic link was refused (`reason` of `user.sign_in_failed`). */
export const EMAIL_CODE_FAILURE_REASONS = ['wrong_code', 'code_expired', 'code_used', 'code_attempts_exhausted'] as const;
export type EmailCodeFailureReason = (typeof EMAIL_CODE_FAILURE_REASONS)[number];

export const EMAIL_CODE_EVENTS = {
  'user.email_code_sent': {
    description:
      'A one-time sign-in code and magic link were sent to a directory user’s email (the identifier named them on the sign-in page and they chose “Email me a code”). `expiresAt`: when code and link stop working. Nothing is sent, and no event recorded, for an identifier that names no active user with an email. With `purpose: second_factor`, a code alone (no link) was sent to the user’s verified email as the second factor of a sign-in (“Email me a code instead”).',
    data: z.looseObject({
      userId: uuid,
      clientId: z.string(),
      email: z.string(),
      expiresAt: z.string(),
      ip: z.string().nullable(),
      purpose: z.enum(['second_factor']).optional(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
