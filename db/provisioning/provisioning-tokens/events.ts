// Events of provisioning tokens, assembled into the event catalog (db/event-catalog.ts). The token's value never
// appears in them: `provisioningToken` shows its prefix and hint only.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { ProvisioningToken } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const provisioningToken = z.looseObject({ provisioningToken: ProvisioningToken });

export const PROVISIONING_TOKEN_EVENTS = {
  'provisioning_token.created': { description: 'A provisioning token (SCIM or HRIS) was created.', data: provisioningToken },
  'provisioning_token.rotated': {
    description: 'A provisioning token got a new value; the previous one works until `previousTokenExpiresAt`.',
    data: provisioningToken,
  },
  'provisioning_token.revoked': { description: 'A provisioning token was revoked: it is refused from the next request.', data: provisioningToken },
  'provisioning_token.deleted': { description: 'A provisioning token was deleted; `provisioningToken` is its last state.', data: provisioningToken },
} as const satisfies Record<string, EventTypeEntry>;
