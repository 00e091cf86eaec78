// An organization key (SPEC "Organizations": OrganizationKey, OrganizationKeyTenant). The secret itself is
// never part of the row: only its display prefix.
import { z } from 'zod';
import { nullableTimestamp, uuid } from '../../shared/rows.ts';

export const OrganizationKeyTenant = z.object({ id: uuid, tenantId: uuid, tenantName: z.string().nullable() }).meta({ id: 'OrganizationKeyTenant' });
export type OrganizationKeyTenant = z.infer<typeof OrganizationKeyTenant>;

export const OrganizationKey = z
  .object({
    id: uuid,
    organizationId: uuid,
    name: z.string(),
    prefix: z.string().describe('The first characters of the key (adok_…), to recognise it'),
    description: z.string().nullable(),
    expiresAt: nullableTimestamp,
    lastUsedAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    allTenants: z.boolean().describe('The key reaches every tenant of its organization; otherwise only `tenants`'),
    tenants: z.array(OrganizationKeyTenant).nullable().describe('The tenants the key is limited to (empty when allTenants)'),
    active: z.boolean().describe('Neither revoked nor expired'),
  })
  .meta({ id: 'OrganizationKey' });
export type OrganizationKey = z.infer<typeof OrganizationKey>;
