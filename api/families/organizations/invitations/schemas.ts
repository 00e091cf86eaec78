import { z } from 'zod';
import { MEMBER_ROLES, Organization, OrganizationInvitation, OrganizationMember, OrganizationUser } from '../../../../db/organizations/organizations/rows.ts';
import { ScopeList } from '../../../common/credentials.ts';
import { pageOf } from '../../../common/schemas.ts';

// Permissive on purpose: operators of a self-hosted service may have addresses such as admin@localhost.
const email = z
  .string()
  .trim()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address');
const dateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });

export const InvitationParams = z.strictObject({ organizationId: z.uuid(), invitationId: z.uuid() });

export const OrganizationInvitationsResponse = pageOf('invitations', OrganizationInvitation)
  .extend({ organization: Organization })
  .meta({ id: 'OrganizationInvitationsResponse' });
export const OrganizationInvitationResponse = z
  .object({ organization: Organization.optional(), invitation: OrganizationInvitation.optional() })
  .meta({ id: 'OrganizationInvitationResponse' });

export const CreateInvitationBody = z
  .strictObject({
    email,
    role: z.enum(MEMBER_ROLES).optional().describe('Role of the member on acceptance; default member'),
    expiresAt: dateTime.optional().describe('Default: 7 days from now'),
    tenantAccess: z.array(z.uuid()).max(100).optional().describe('Tenants of the organization the invitation is about'),
    message: z.string().max(2000).nullable().optional(),
  })
  .meta({ id: 'CreateOrganizationInvitationRequest' });

export const ResendInvitationBody = z
  .strictObject({ expiresAt: dateTime.optional().describe('Default: 7 days from now') })
  .meta({ id: 'ResendOrganizationInvitationRequest' });

export const SendInviteBody = z
  .strictObject({
    email,
    scopes: ScopeList.optional().describe('Management scopes of the operator user, when the invite creates it (default none)'),
    validFrom: dateTime.optional().describe('The invitation cannot be accepted before this time'),
    validUntil: dateTime.optional().describe('The invitation expires at this time; default 7 days from now'),
  })
  .meta({ id: 'SendOrganizationInviteRequest' });
export const SendInviteResponse = z
  .object({
    organization: Organization,
    user: OrganizationUser.nullable().describe('Null: the invitee is shown once they join (whether the email already has an account is not revealed)'),
    invitation: OrganizationInvitation,
  })
  .meta({ id: 'SendOrganizationInviteResponse' });

export const AcceptInvitationBody = z.strictObject({ token: z.string().min(1).max(200) }).meta({ id: 'AcceptOrganizationInvitationRequest' });
export const AcceptInvitationResponse = z
  .object({ organization: Organization.optional(), member: OrganizationMember.optional() })
  .meta({ id: 'AcceptOrganizationInvitationResponse' });

export const JoinOrganizationBody = z.strictObject({ invitationCode: z.string().min(1).max(64) }).meta({ id: 'JoinOrganizationRequest' });
export const JoinOrganizationResponse = z.object({ organization: Organization, user: OrganizationUser }).meta({ id: 'JoinOrganizationResponse' });
