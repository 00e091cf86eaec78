// Events of the identity families (directory users, service accounts, personal access tokens, signing keys),
// assembled into the event catalog (db/event-catalog.ts). No secret appears in them.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';
import { PersonalAccessToken, ServiceAccount } from './credentials-rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const serviceAccount = z.looseObject({ serviceAccount: ServiceAccount });
const token = z.looseObject({ token: PersonalAccessToken });

export const IDENTITY_EVENTS = {
  'user.created': {
    description: 'A directory user was created in an environment.',
    data: z.looseObject({ user: z.looseObject({ id: uuid, userName: z.string() }) }),
  },
  'service_account.created': { description: 'A service account was created.', data: serviceAccount },
  'service_account.updated': { description: 'A service account was changed (name, description, scopes or active).', data: serviceAccount },
  'service_account.deleted': { description: 'A service account was deleted; `serviceAccount` is its last state.', data: serviceAccount },
  'service_account.secret_rotated': { description: 'The client secret of a service account was replaced.', data: serviceAccount },
  'personal_access_token.created': { description: 'A personal access token was created.', data: token },
  'personal_access_token.revoked': { description: 'A personal access token was revoked.', data: token },
  'signing_key.rotated': {
    description: 'A new key now signs access tokens; the previous one is retired.',
    data: z.looseObject({ kid: z.string().describe('Key id of the new signing key') }),
  },
} as const satisfies Record<string, EventTypeEntry>;
