// Events of an environment's JWT claim mappings. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { JwtClaimMapping } from './rows.ts';

export const CLAIM_MAPPING_EVENTS = {
  'jwt_claim_mapping.saved': {
    description: 'A JWT claim mapping of an environment was created or updated (`created` says which).',
    data: z.looseObject({ mapping: JwtClaimMapping, created: z.boolean() }),
  },
  'jwt_claim_mapping.deleted': {
    description: 'A JWT claim mapping of an environment was deleted: its claim is no longer added to tokens.',
    data: z.looseObject({ mapping: JwtClaimMapping }),
  },
} as const satisfies Record<string, EventTypeEntry>;
