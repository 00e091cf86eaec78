import { z } from 'zod';
import { displayName } from '../../../common/schemas.ts';
import { Organization, OrganizationMember } from '../../../../db/organizations/organizations/rows.ts';
import { pageOf } from '../../../common/schemas.ts';

export { Organization, OrganizationMember };

const name = displayName(200);
const description = z.string().max(2000, 'must be at most 2000 characters').nullable();
const billingEmail = z.email({ error: 'must be an email address' }).max(320).nullable();

export const OrganizationParams = z.strictObject({ organizationId: z.uuid() });
export const MemberParams = z.strictObject({ organizationId: z.uuid(), memberId: z.uuid() });
export const OrganizationTenantParams = z.strictObject({ organizationId: z.uuid(), tenantId: z.uuid() });
export const TransferParams = z.strictObject({ tenantId: z.uuid() });

export const OrganizationsList = pageOf('organizations', Organization).meta({ id: 'OrganizationsList' });
export const OrganizationResponse = z.object({ organization: Organization }).meta({ id: 'OrganizationResponse' });

export const CreateOrganizationBody = z
  .strictObject({
    name,
    description: description.optional(),
    billingEmail: billingEmail.optional(),
    tenantIds: z.array(z.uuid()).min(1, 'must list at least one tenant').max(100).describe('Tenants the caller reaches, linked to the new organization'),
  })
  .meta({ id: 'CreateOrganizationRequest' });

export const UpdateOrganizationBody = z
  .strictObject({ name: name.optional(), description: description.optional(), billingEmail: billingEmail.optional() })
  .meta({ id: 'UpdateOrganizationRequest' });

export const OrganizationMembersResponse = pageOf('members', OrganizationMember)
  .extend({ organization: Organization })
  .meta({ id: 'OrganizationMembersResponse' });
export const OrganizationMemberResponse = z.object({ organization: Organization, member: OrganizationMember }).meta({ id: 'OrganizationMemberResponse' });
export const SetMemberActiveBody = z
  .strictObject({ active: z.boolean().describe("false suspends the membership on the member's next request; true restores it") })
  .meta({ id: 'SetOrganizationMemberActiveRequest' });

export const LinkTenantBody = z.strictObject({ tenantId: z.uuid() }).meta({ id: 'LinkTenantRequest' });
export const LinkTenantResponse = z.object({ organization: Organization.optional() }).meta({ id: 'LinkTenantResponse' });
export const TransferTenantBody = z
  .strictObject({
    targetOrganizationId: z.uuid(),
    confirmationName: z.string().max(200).describe("The tenant's name, exactly, to confirm the transfer"),
  })
  .meta({ id: 'TransferTenantRequest' });
