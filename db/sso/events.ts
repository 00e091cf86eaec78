// Events of enterprise SSO and social sign-in, assembled into db/event-catalog.ts. Sign-ins and their failures
// reuse `user.signed_in` and `user.sign_in_failed` (db/oidc/sign-in/events.ts) with `connectionId` and these reasons.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';

/** Why an SSO sign-in was refused (`reason` of `user.sign_in_failed`). */
export const SSO_FAILURE_REASONS = [
  'state_unknown',
  'state_consumed',
  'expired',
  'tampered',
  'replayed',
  'wrong_audience',
  'invalid_response',
  'upstream_error',
  'email_conflict',
  'provisioning_refused',
  'idp_initiated_refused',
  'upstream_cancelled',
] as const;
export type SsoFailureReason = (typeof SSO_FAILURE_REASONS)[number];

export const SSO_EVENTS = {
  'user.linked': {
    description:
      'A directory user was linked to an upstream identity of a connection (`subject`: the OIDC `sub`, GitHub user id or SAML NameID). `via`: `email` (an existing user with the same email, verified upstream) or `jit` (the user was created by this sign-in).',
    data: z.looseObject({
      userId: uuid,
      connectionId: uuid,
      providerId: z.string(),
      subject: z.string(),
      email: z.string().nullable(),
      via: z.enum(['email', 'jit']),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
