// Events of the sign-in pages of the environments' OpenID providers, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { SignInSettings } from './settings.ts';

const Settings = SignInSettings.loose();

export const SIGN_IN_EVENTS = {
  'user.signed_in': {
    description:
      'A directory user signed in on the sign-in page of the environment’s OpenID provider, for a client (`amr`: the methods used, `pwd` for a password).',
    data: z.looseObject({ userId: uuid, clientId: z.string(), amr: z.array(z.string()), ip: z.string().nullable(), remember: z.boolean() }),
  },
  'user.sign_in_failed': {
    description:
      'A sign-in on the sign-in page failed. `reason`: `unknown_user` (no user has that userName or email), `wrong_password` (or no password set), `inactive` (the user is deactivated). The page shows the same message for every reason.',
    data: z.looseObject({
      userId: uuid.nullable(),
      login: z.string(),
      clientId: z.string(),
      reason: z.enum(['unknown_user', 'wrong_password', 'inactive']),
      ip: z.string().nullable(),
    }),
  },
  'user.consented': {
    description: 'A directory user allowed a client the scopes it asked for (a connected app); `grantId` is the provider grant its tokens are issued under.',
    data: z.looseObject({ userId: uuid, clientId: z.string(), scopes: z.array(z.string()), grantId: z.string() }),
  },
  'sign_in_settings.updated': {
    description:
      "An environment's sign-in page settings (branding, sign-up, default locale) were replaced: `settings` is what is stored now, `previous` what was.",
    data: z.looseObject({ environmentId: uuid, settings: Settings, previous: Settings }),
  },
} as const satisfies Record<string, EventTypeEntry>;
