// What the access-requests page shows a signed-in directory user (api/families/access/access-page): the policies it
// may ask under, its own requests with their grants, and, as an approver, the requests waiting for it and who holds
// what until when. Labels (policy, target, people) come with the rows, so a page is a handful of statements.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';
import { GrantState, RequestState } from '../elevate/rows.ts';

export const PageUser = z.object({ id: uuid, userName: z.string(), displayName: z.string().nullable(), active: z.boolean() });
export type PageUser = z.infer<typeof PageUser>;

export const EligiblePolicy = z.object({
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  target: z.string(),
  maxDurationSeconds: z.number().int(),
  defaultDurationSeconds: z.number().int(),
  requireJustification: z.boolean(),
  ticketPattern: z.string().nullable(),
  approvalsRequired: z.number().int(),
});
export type EligiblePolicy = z.infer<typeof EligiblePolicy>;

export const OwnRequest = z.object({
  id: uuid,
  policyName: z.string(),
  target: z.string(),
  state: RequestState,
  durationSeconds: z.number().int(),
  justification: z.string().nullable(),
  ticketId: z.string().nullable(),
  expiresAt: isoTimestamp,
  createdAt: isoTimestamp,
  comments: z.array(z.string()),
  grantId: uuid.nullable(),
  grantState: GrantState.nullable(),
  activationDeadline: nullableTimestamp,
  grantExpiresAt: nullableTimestamp,
});
export type OwnRequest = z.infer<typeof OwnRequest>;

export const WaitingRequest = z.object({
  id: uuid,
  policyName: z.string(),
  target: z.string(),
  requester: z.string(),
  durationSeconds: z.number().int(),
  justification: z.string().nullable(),
  ticketId: z.string().nullable(),
  approvals: z.number().int(),
  approvalsRequired: z.number().int(),
  expiresAt: isoTimestamp,
  createdAt: isoTimestamp,
});
export type WaitingRequest = z.infer<typeof WaitingRequest>;

export const HeldGrant = z.object({
  id: uuid,
  holder: z.string(),
  policyName: z.string(),
  target: z.string(),
  state: GrantState,
  activationDeadline: isoTimestamp,
  expiresAt: nullableTimestamp,
});
export type HeldGrant = z.infer<typeof HeldGrant>;
