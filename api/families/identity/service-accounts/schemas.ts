import { z } from 'zod';
import { ServiceAccount as ServiceAccountRow } from '../../../../db/identity/credentials-rows.ts';
import { ScopeList } from '../../../common/credentials.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';

// The public shape (SPEC "Service accounts and personal access tokens"): `active` may be null there, though the
// service always fills it in.
export const ServiceAccount = ServiceAccountRow.extend({ active: z.boolean().nullable() }).meta({ id: 'ServiceAccount' });

const name = displayName(200);

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
