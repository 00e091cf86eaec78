// Organizations, their members and invitations (SPEC "Organizations").
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const Organization = z
  .object({
    id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    billingEmail: z.string().nullable(),
    logoUri: z.string().nullable(),
    active: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const OrganizationUser = z
  .object({ id: uuid, displayName: z.string().nullable(), emails: z.array(z.string()).nullable() })
  .meta({ id: 'OrganizationUser' });
export type OrganizationUser = z.infer<typeof OrganizationUser>;

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;

export const OrganizationMember = z
  .object({
    id: uuid,
    organizationId: uuid,
    userId: uuid,
    role: z.string(),
    invitedAt: nullableTimestamp,
    joinedAt: nullableTimestamp.describe('Null while the member has not accepted an invitation yet'),
    active: z.boolean().nullable(),
    user: OrganizationUser.nullable(),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
  })
  .meta({ id: 'OrganizationMember' });
export type OrganizationMember = z.infer<typeof OrganizationMember>;

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const OrganizationInvitation = z
  .object({
    id: uuid,
    organizationId: uuid,
    email: z.string(),
    role: z.string().nullable(),
    invitedBy: z.string().nullable().describe('Id of the principal (user or service account) that invited'),
    token: z.string().nullable().describe('The invitation token: returned only when the invitation is created or resent'),
    invitationCode: z.string().nullable().describe('A short code to join with (POST /v1/organizations/join): returned only when created or resent'),
    expiresAt: nullableTimestamp,
    acceptedAt: nullableTimestamp,
    status: z.enum(INVITATION_STATUSES).nullable(),
    message: z.string().nullable(),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    tenantAccess: z.array(uuid).nullable(),
    inviter: OrganizationUser.nullable(),
  })
  .meta({ id: 'OrganizationInvitation' });
export type OrganizationInvitation = z.infer<typeof OrganizationInvitation>;
