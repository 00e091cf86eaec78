import { z } from 'zod';
import { TenantSeat } from '../../../../db/tenants/seats/rows.ts';
import { User } from '../../../../db/identity/users/rows.ts';
import { ScopeList } from '../../../common/credentials.ts';
import { Tenant } from '../tenants/schemas.ts';
import { pageOf } from '../../../common/schemas.ts';

export { TenantSeat };

const timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).nullable();
const scopes = ScopeList.describe("Management scopes the seat allows in the tenant (narrowing the user's token); empty = no narrowing");

export const SeatParams = z.strictObject({ tenantId: z.uuid(), seatId: z.uuid() });

export const SendTenantInviteBody = z
  .strictObject({
    email: z.email({ error: 'must be an email address' }).max(320),
    scopes: scopes.optional(),
    validFrom: timestamp.optional().describe('Access starts then (default: when the user joins)'),
    validUntil: timestamp.optional().describe('Access ends then (default: never)'),
  })
  .meta({ id: 'SendTenantInviteRequest' });

export const UpdateTenantSeatBody = z
  .strictObject({ scopes: scopes.optional(), validFrom: timestamp.optional(), validUntil: timestamp.optional(), active: z.boolean().optional() })
  .meta({ id: 'UpdateTenantSeatRequest' });

export const JoinTenantBody = z.strictObject({ invitationCode: z.string().min(1).max(200) }).meta({ id: 'JoinTenantRequest' });

export const TenantInviteResponse = z
  .object({
    tenant: Tenant.optional(),
    invitationCode: z.string().describe('The join code for POST /v1/tenants/join, shown only in this response (no email is sent yet): hand it to the invitee'),
  })
  .meta({ id: 'TenantInviteResponse' });
export const TenantSeatsResponse = pageOf('seats', TenantSeat, { nullable: true }).extend({ tenant: Tenant.nullable() }).meta({ id: 'TenantSeatsResponse' });
export const TenantSeatMutationResponse = z.object({ tenant: Tenant.nullable(), seat: TenantSeat.nullable() }).meta({ id: 'TenantSeatMutationResponse' });
export const TenantMembershipResponse = z.object({ tenant: Tenant.nullable(), user: User.nullable() }).meta({ id: 'TenantMembershipResponse' });
