import { z } from 'zod';
import { displayName } from '../../common/schemas.ts';
import { PersonalAccessToken as PersonalAccessTokenRow, ServiceAccount as ServiceAccountRow } from '../../../db/identity/credentials-rows.ts';
import { isKnownScope } from '../../scopes.ts';
import { pageOf } from '../../common/schemas.ts';

// The public shapes (SPEC "Service accounts and personal access tokens"): `active`, and a token's `scopes`, may be null
// there, though the service always fills them in.
export const ServiceAccount = ServiceAccountRow.extend({ active: z.boolean().nullable() }).meta({ id: 'ServiceAccount' });
export const PersonalAccessToken = PersonalAccessTokenRow.extend({ active: z.boolean().nullable(), scopes: z.array(z.string()).nullable() }).meta({
  id: 'PersonalAccessToken',
});

export const ScopeList = z.array(z.string().refine(isKnownScope, { error: (i) => `${String(i.input)} is not a known scope` })).max(100);

const name = displayName(200);

export const PersonalAccessTokensList = pageOf('tokens', PersonalAccessToken).meta({ id: 'PersonalAccessTokensList' });
export const CreatePersonalAccessTokenBody = z
  .strictObject({
    name,
    expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).nullable().optional(),
    scopes: ScopeList.optional().describe('Defaults to every scope the user holds'),
  })
  .meta({ id: 'CreatePersonalAccessTokenRequest' });
export const CreatePersonalAccessTokenResponse = z
  .object({ token: PersonalAccessToken, fullToken: z.string().nullable().describe('The token itself, shown only in this response') })
  .meta({ id: 'CreatePersonalAccessTokenResponse' });
export const RevokePersonalAccessTokenResponse = z.object({ token: PersonalAccessToken.nullable() }).meta({ id: 'RevokePersonalAccessTokenResponse' });
export const TokenParams = z.strictObject({ tokenId: z.uuid() });

export const ServiceAccountsList = pageOf('serviceAccounts', ServiceAccount).meta({ id: 'ServiceAccountsList' });
export const ServiceAccountResponse = z.object({ serviceAccount: ServiceAccount }).meta({ id: 'ServiceAccountResponse' });
export const CreateServiceAccountResponse = z
  .object({ serviceAccount: ServiceAccount, clientSecret: z.string().describe('Shown only in this response; prefix adsa_') })
  .meta({ id: 'CreateServiceAccountResponse' });
export const CreateServiceAccountBody = z
  .strictObject({ name, description: z.string().max(2000).nullable().optional(), scopes: ScopeList.optional() })
  .meta({ id: 'CreateServiceAccountRequest' });
export const UpdateServiceAccountBody = z
  .strictObject({
    name: name.optional(),
    description: z.string().max(2000).nullable().optional(),
    scopes: ScopeList.optional(),
    active: z.boolean().optional(),
  })
  .meta({ id: 'UpdateServiceAccountRequest' });
export const ServiceAccountParams = z.strictObject({ organizationId: z.uuid(), serviceAccountId: z.uuid() });
export const OrganizationParams = z.strictObject({ organizationId: z.uuid() });
