// Events of an environment's OpenID provider itself. Registered in db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';

export const OIDC_PROVIDER_EVENTS = {
  'oidc_token.revoked': {
    description: 'A client revoked one of its tokens at the revocation endpoint (RFC 7009).',
    data: z.looseObject({
      environmentId: uuid,
      clientId: z.string(),
      tokenType: z.enum(['AccessToken', 'RefreshToken', 'ClientCredentials']),
      grantId: z.string().nullable(),
      accountId: z.string().nullable(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
