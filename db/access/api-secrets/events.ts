// Events of environment API secrets, assembled into the event catalog (db/event-catalog.ts). The secret's value
// never appears in them: `apiSecret` shows its prefix and hint only.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { ApiSecret } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const apiSecret = z.looseObject({ apiSecret: ApiSecret });

export const API_SECRET_EVENTS = {
  'api_secret.created': { description: 'An environment API secret was created.', data: apiSecret },
  'api_secret.updated': { description: 'The name or description of an environment API secret was changed.', data: apiSecret },
  'api_secret.rotated': {
    description: 'An environment API secret got a new value; the previous one works until `previousSecretExpiresAt`.',
    data: apiSecret,
  },
  'api_secret.revoked': { description: 'An environment API secret was revoked: it is refused from the next request.', data: apiSecret },
  'api_secret.deleted': { description: 'An environment API secret was deleted; `apiSecret` is its last state.', data: apiSecret },
} as const satisfies Record<string, EventTypeEntry>;
