// Events of an environment's OpenID signing key ring. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';

export const OIDC_SIGNING_KEY_EVENTS = {
  'oidc_signing_key.rotated': {
    description:
      "An environment's OpenID signing keys were rotated: a new active key per algorithm; the previous ones stay in the JWKS until the tokens they signed have expired.",
    data: z.looseObject({ environmentId: uuid, kids: z.array(z.string()), retiresAt: z.string() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
