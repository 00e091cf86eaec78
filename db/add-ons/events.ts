// Events of an environment's add-ons, assembled into the event catalog (db/event-catalog.ts). An add-on shows only
// masked hints of its secrets.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { EnvironmentAddOn } from './rows.ts';

const addOn = z.looseObject({ addOn: EnvironmentAddOn });

export const ADD_ON_EVENTS = {
  'add_on.saved': {
    description: 'An add-on of an environment was created or changed; `deactivated` names the add-on of its category it replaced as the active one, if any.',
    data: z.looseObject({ addOn: EnvironmentAddOn, deactivated: z.string().nullable() }),
  },
  'add_on.deleted': { description: 'An add-on was deleted; `addOn` is its last state.', data: addOn },
  'add_on.tested': {
    description:
      'An add-on was tested: for a bot challenge, siteverify called with a dummy token; `reached`, the vendor’s `success` and `errorCodes`, and `secretAccepted` (no `invalid-input-secret`). ' +
      'For segment and analytics, one test event sent to the vendor’s batch API: `success` a 2xx, `secretAccepted` no 401 or 403, `statusCode` the answer, `errorCodes` `http_<status>` otherwise.',
    data: z.looseObject({
      addOn: EnvironmentAddOn,
      reached: z.boolean(),
      success: z.boolean(),
      errorCodes: z.array(z.string()),
      secretAccepted: z.boolean(),
      error: z.string().nullable(),
      statusCode: z.number().int().nullable().optional(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
