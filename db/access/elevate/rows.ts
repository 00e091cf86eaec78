// Shapes of elevate: policies (who may ask for which role or group membership, for how long, approved by whom),
// access requests with their decisions, and the grants approved requests make.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const ResourceRef = z.object({ type: z.string(), id: z.string() });

export const PolicyTarget = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('role'), roleId: uuid, resources: z.array(ResourceRef).nullable() }),
    z.object({ type: z.literal('group'), groupId: uuid }),
  ])
  .meta({ id: 'ElevatePolicyTarget' });
export type PolicyTarget = z.infer<typeof PolicyTarget>;

const People = z.object({ userIds: z.array(uuid), groupIds: z.array(uuid) });

export const Policy = z
  .object({
    id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    target: PolicyTarget,
    eligible: People.describe('Who may request: these users and the members of these groups'),
    approvers: People.describe('Who may decide: these users and the members of these groups (never the requester)'),
    approvalsRequired: z.number().int(),
    autoApprove: z.string().nullable().describe('CEL over `requester` and `request`: when true, a request is approved at once'),
    maxDurationSeconds: z.number().int(),
    defaultDurationSeconds: z.number().int(),
    requireJustification: z.boolean(),
    ticketPattern: z.string().nullable(),
    requestTtlSeconds: z.number().int(),
    activationWindowSeconds: z.number().int(),
    reapproveExtensions: z.boolean(),
    notificationChannelIds: z.array(uuid),
    escalationChannelIds: z.array(uuid),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'ElevatePolicy' });
export type Policy = z.infer<typeof Policy>;

export const RequestState = z.enum(['pending', 'approved', 'denied', 'cancelled', 'expired']);

export const Decision = z
  .object({ approverId: uuid.nullable(), decision: z.enum(['approve', 'deny']), comment: z.string().nullable(), createdAt: isoTimestamp })
  .meta({ id: 'ElevateDecision' });

export const AccessRequest = z
  .object({
    id: uuid,
    policyId: uuid,
    requesterId: uuid,
    durationSeconds: z.number().int(),
    justification: z.string().nullable(),
    ticketId: z.string().nullable(),
    state: RequestState,
    extendsGrantId: uuid.nullable().describe('Set on a request to extend an active grant'),
    autoApproved: z.boolean(),
    decisions: z.array(Decision),
    grantId: uuid.nullable().describe('The grant the approval made'),
    expiresAt: isoTimestamp.describe('When a pending request expires'),
    decidedAt: nullableTimestamp,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'ElevateRequest' });
export type AccessRequest = z.infer<typeof AccessRequest>;

export const GrantState = z.enum(['approved', 'active', 'expired', 'revoked']);

export const Grant = z
  .object({
    id: uuid,
    policyId: uuid,
    requestId: uuid,
    userId: uuid,
    target: PolicyTarget,
    state: GrantState,
    durationSeconds: z.number().int(),
    activationDeadline: isoTimestamp.describe('An approved grant not activated by then expires'),
    activatedAt: nullableTimestamp,
    expiresAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    revokeReason: z.string().nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'ElevateGrant' });
export type Grant = z.infer<typeof Grant>;
