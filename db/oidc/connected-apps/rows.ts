// A connected app (SPEC OidcClientGrant): the consent a user gave a client of the environment, with the client's
// name, URI and logo and the user's externalId.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const OidcClientGrant = z
  .object({
    id: uuid,
    environmentId: uuid,
    clientId: z.string(),
    userId: uuid,
    userExternalId: z.string().nullable(),
    clientName: z.string().nullable(),
    clientUri: z.string().nullable(),
    logoUri: z.string().nullable(),
    scopes: z.array(z.string()).describe('The scopes the user consented to'),
    consentedAt: isoTimestamp,
    expiresAt: nullableTimestamp,
    lastUsedAt: nullableTimestamp.describe(
      'When a token was last issued under the grant (code exchange or refresh); kept to the minute, written just after the token is issued',
    ),
    revokedAt: nullableTimestamp,
    revoked: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'OidcClientGrant' });
export type OidcClientGrant = z.infer<typeof OidcClientGrant>;
