import { z } from 'zod';
import { displayName } from '../../../common/schemas.ts';
import { OrganizationKey } from '../../../../db/organizations/organization-keys/rows.ts';
import { ManagementMeta } from '../../../common/schemas.ts';
import { pageOf } from '../../../common/schemas.ts';

export { OrganizationKey };

const name = displayName(200);
const tenantIds = z.array(z.uuid()).max(1000).describe('Tenants of the organization the key is limited to');
const allTenants = z.boolean().describe('Reach every tenant of the organization, now and later. Defaults to true unless tenantIds are given');

export const OrganizationKeyParams = z.strictObject({ organizationId: z.uuid(), keyId: z.uuid() });

export const CreateOrganizationKeyBody = z
  .strictObject({
    name,
    description: z.string().max(2000).nullable().optional(),
    allTenants: allTenants.optional(),
    tenantIds: tenantIds.optional(),
    expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).nullable().optional(),
  })
  .meta({ id: 'CreateOrganizationKeyRequest' });

export const UpdateOrganizationKeyTenantsBody = z
  .strictObject({ allTenants: allTenants.optional(), tenantIds: tenantIds.optional() })
  .meta({ id: 'UpdateOrganizationKeyTenantsRequest' });

export const OrganizationKeyWithTokenResponse = z
  .object({
    key: OrganizationKey.nullable(),
    fullToken: z.string().nullable().describe('The key itself (adok_…), shown only in this response'),
    meta: ManagementMeta.optional(),
  })
  .meta({ id: 'OrganizationKeyWithTokenResponse' });
export const OrganizationKeysResponse = pageOf('keys', OrganizationKey, { nullable: true }).meta({ id: 'OrganizationKeysResponse' });
export const OrganizationKeyResponse = z.object({ key: OrganizationKey.nullable(), meta: ManagementMeta.optional() }).meta({ id: 'OrganizationKeyResponse' });
