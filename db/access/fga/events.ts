// Events of the FGA store (api/families/access/fga), assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';

const tupleKey = z.looseObject({ user: z.string(), relation: z.string(), object: z.string() });

export const FGA_EVENTS = {
  'fga.model.written': {
    description: 'An authorization model was written to the environment’s FGA store (it becomes the latest).',
    data: z.looseObject({ storeId: z.string(), authorizationModelId: z.string(), schemaVersion: z.string(), typeCount: z.number().int() }),
  },
  'fga.tuples.written': {
    description: 'Relationship tuples were written and deleted in one request; `writes` and `deletes` list at most 100 keys each.',
    data: z.looseObject({
      storeId: z.string(),
      writeCount: z.number().int(),
      deleteCount: z.number().int(),
      writes: z.array(tupleKey),
      deletes: z.array(tupleKey),
    }),
  },
  'fga.assertions.written': {
    description: 'The assertions of an authorization model were replaced.',
    data: z.looseObject({ storeId: z.string(), authorizationModelId: z.string(), count: z.number().int() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
