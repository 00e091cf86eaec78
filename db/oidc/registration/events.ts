// Events of an environment's OIDC registration setting. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';

export const OIDC_REGISTRATION_EVENTS = {
  'oidc_settings.updated': {
    description: "An environment's OpenID provider settings were saved (whether RFC 7591 dynamic client registration is open).",
    data: z.looseObject({ environmentId: uuid, dynamicRegistration: z.boolean(), previous: z.looseObject({ dynamicRegistration: z.boolean() }) }),
  },
} as const satisfies Record<string, EventTypeEntry>;
