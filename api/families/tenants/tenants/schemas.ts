import { z } from 'zod';
import { displayName } from '../../../common/schemas.ts';
import { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { pageOf } from '../../../common/schemas.ts';

export { Tenant };

export const TenantsList = pageOf('tenants', Tenant).meta({ id: 'TenantsList' });
export const TenantResponse = z.object({ tenant: Tenant }).meta({ id: 'TenantResponse' });
export const TenantParams = z.strictObject({ tenantId: z.uuid() });

const name = displayName(200);
const text = z.string().max(2000, 'must be at most 2000 characters').nullable();

export const CreateTenantBody = z
  .strictObject({
    name,
    description: text.optional(),
    company: displayName(200).nullable().optional(),
    organizationId: z.uuid().optional().describe("Organization that owns the new tenant; defaults to the caller's own"),
  })
  .meta({ id: 'CreateTenantRequest' });

export const UpdateTenantBody = z
  .strictObject({ name: name.optional(), description: text.optional(), company: displayName(200).nullable().optional() })
  .meta({ id: 'UpdateTenantRequest' });
