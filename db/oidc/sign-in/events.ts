// Events of the sign-in pages of the environments' OpenID providers, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { SSO_FAILURE_REASONS } from '../../sso/events.ts';

export const SIGN_IN_EVENTS = {
  'user.signed_in': {
    description:
      'A directory user signed in on the sign-in page of the environment’s OpenID provider, for a client (`amr`: the methods used, `pwd` for a password, `fed` for SSO through a connection, named by `connectionId`).',
    data: z.looseObject({ userId: uuid, clientId: z.string(), amr: z.array(z.string()), ip: z.string().nullable(), remember: z.boolean() }),
  },
  'user.sign_in_failed': {
    description:
      'A sign-in on the sign-in page failed. `reason`: `unknown_user` (no user has that userName or email), `wrong_password` (or no password set), `inactive` (the user is deactivated). The page shows the same message for every reason. An SSO sign-in (through a connection: `connectionId`) is refused with `state_unknown`, `state_consumed`, `expired`, `tampered`, `replayed`, `wrong_audience`, `invalid_response`, `upstream_error`, `email_conflict`, `provisioning_refused`, `idp_initiated_refused` or `inactive`.',
    data: z.looseObject({
      userId: uuid.nullable(),
      login: z.string(),
      clientId: z.string(),
      reason: z.enum(['unknown_user', 'wrong_password', 'inactive', ...SSO_FAILURE_REASONS]),
      ip: z.string().nullable(),
    }),
  },
  'user.consented': {
    description: 'A directory user allowed a client the scopes it asked for (a connected app); `grantId` is the provider grant its tokens are issued under.',
    data: z.looseObject({ userId: uuid, clientId: z.string(), scopes: z.array(z.string()), grantId: z.string() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
