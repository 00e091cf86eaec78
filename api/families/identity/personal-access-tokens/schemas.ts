import { z } from 'zod';
import { PersonalAccessToken as PersonalAccessTokenRow } from '../../../../db/identity/credentials-rows.ts';
import { ScopeList } from '../../../common/credentials.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';

// The public shape (SPEC "Service accounts and personal access tokens"): `active` and `scopes` may be null there,
// though the service always fills them in.
export const PersonalAccessToken = PersonalAccessTokenRow.extend({ active: z.boolean().nullable(), scopes: z.array(z.string()).nullable() }).meta({
  id: 'PersonalAccessToken',
});

export const PersonalAccessTokensList = pageOf('tokens', PersonalAccessToken).meta({ id: 'PersonalAccessTokensList' });
export const CreatePersonalAccessTokenBody = z
  .strictObject({
    name: displayName(200),
    expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).nullable().optional(),
    scopes: ScopeList.optional().describe('Defaults to every scope the user holds'),
  })
  .meta({ id: 'CreatePersonalAccessTokenRequest' });
export const CreatePersonalAccessTokenResponse = z
  .object({ token: PersonalAccessToken, fullToken: z.string().nullable().describe('The token itself, shown only in this response') })
  .meta({ id: 'CreatePersonalAccessTokenResponse' });
export const RevokePersonalAccessTokenResponse = z.object({ token: PersonalAccessToken.nullable() }).meta({ id: 'RevokePersonalAccessTokenResponse' });
export const TokenParams = z.strictObject({ tokenId: z.uuid() });
