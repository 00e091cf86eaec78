// Events of the OIDC clean-up process, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';

export const OIDC_CLEANUP_EVENTS = {
  'oidc_signing_key.retired': {
    description:
      "A signing key of an environment's key ring reached the end of its retirement period after a rotation: it leaves the JWKS, and tokens it signed no longer verify.",
    // Loose: a field added later never breaks a reader of the catalog.
    data: z.looseObject({
      key: z.looseObject({ id: z.uuid(), kid: z.string(), alg: z.string(), status: z.literal('retired'), retiresAt: z.null() }),
      retiredAfter: z.string(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
