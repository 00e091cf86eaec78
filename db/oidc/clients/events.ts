// Events of OIDC clients, assembled into the event catalog (db/event-catalog.ts). A client secret never appears in
// them: `client` shows its display prefix only.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { OidcClient } from './rows.ts';

const client = z.looseObject({ client: OidcClient });

export const OIDC_CLIENT_EVENTS = {
  'oidc_client.created': { description: 'An OIDC client was registered in an environment.', data: client },
  'oidc_client.updated': { description: 'The settings of an OIDC client were changed.', data: client },
  'oidc_client.deleted': { description: 'An OIDC client was deleted; `client` is its last state.', data: client },
  'oidc_client.secret_rotated': {
    description: 'An OIDC client got a new client secret; the previous one stopped working at once.',
    data: client,
  },
} as const satisfies Record<string, EventTypeEntry>;
