// Request and response shapes of elevate: policies, access requests and grants.
import { z } from 'zod';
import { AccessRequest, Grant, GrantState, Policy, RequestState } from '../../../../db/access/elevate/rows.ts';
import { MAX_CONDITION_LENGTH } from '../../../../lib/authz/conditions.ts';
import { displayName, pageOf, PageQuery } from '../../../common/schemas.ts';
import { ResourceId, TypeKey } from '../rbac/schemas.ts';

export { AccessRequest, Grant, Policy };

const DAY = 86_400;
const Seconds = (max: number) => z.number().int().min(1).max(max);
const Ids = z.array(z.uuid()).max(100);
const People = z.strictObject({ userIds: Ids.default([]), groupIds: Ids.default([]) });
const Text = (max: number) => z.string().max(max);

export const EnvironmentParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const PolicyParams = EnvironmentParams.extend({ policyId: z.uuid() });
export const RequestParams = EnvironmentParams.extend({ requestId: z.uuid() });
export const GrantParams = EnvironmentParams.extend({ grantId: z.uuid() });

const Target = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('role'),
    roleId: z.uuid().describe('An RBAC role of the environment'),
    resources: z
      .array(z.strictObject({ type: TypeKey, id: ResourceId }))
      .min(1)
      .max(100)
      .optional()
      .describe('Limits the role to these instances; absent = every instance'),
  }),
  z.strictObject({ type: z.literal('group'), groupId: z.uuid().describe('A directory group of the environment') }),
]);

export const PolicyBody = z
  .strictObject({
    name: displayName(200),
    description: Text(2000).nullable().default(null),
    target: Target,
    eligible: People.describe('Who may request: these users and the members of these groups'),
    approvers: People.default({ userIds: [], groupIds: [] }).describe('Who decides: these users and the members of these groups; never the requester'),
    approvalsRequired: z.number().int().min(1).max(10).default(1),
    autoApprove: Text(MAX_CONDITION_LENGTH)
      .nullable()
      .default(null)
      .describe(
        'CEL over `requester` (id, userName, email, attributes, groups) and `request` (durationSeconds, justification, ticketId); true approves at once',
      ),
    maxDurationSeconds: Seconds(30 * DAY),
    defaultDurationSeconds: Seconds(30 * DAY)
      .optional()
      .describe('Default: maxDurationSeconds'),
    requireJustification: z.boolean().default(false),
    ticketPattern: Text(200).nullable().default(null).describe('A regular expression the ticket id (or, without one, the justification) must match'),
    requestTtlSeconds: Seconds(30 * DAY).default(DAY),
    activationWindowSeconds: Seconds(30 * DAY).default(DAY),
    reapproveExtensions: z.boolean().default(false),
    notificationChannelIds: Ids.default([]).describe('Notification channels of the tenant for approval requests and reminders'),
    escalationChannelIds: Ids.default([]).describe('Notification channels of the tenant for escalations'),
  })
  .meta({ id: 'ElevatePolicyRequest' });
export type PolicyBody = z.infer<typeof PolicyBody>;

export const PolicyResponse = z.object({ policy: Policy }).meta({ id: 'ElevatePolicyResponse' });
export const PoliciesList = pageOf('policies', Policy).meta({ id: 'ElevatePoliciesList' });

export const CreateRequestBody = z
  .strictObject({
    policyId: z.uuid(),
    durationSeconds: Seconds(30 * DAY)
      .optional()
      .describe("Default: the policy's defaultDurationSeconds"),
    justification: Text(2000).optional(),
    ticketId: Text(200).optional(),
    requesterId: z.uuid().optional().describe('An operator asking on behalf of a directory user; a user asks for itself'),
  })
  .meta({ id: 'CreateElevateRequest' });
export type CreateRequestBody = z.infer<typeof CreateRequestBody>;

export const DecideBody = z
  .strictObject({
    comment: Text(2000).optional(),
    approverId: z.uuid().optional().describe('An operator deciding for a directory user who is an approver; a user decides for itself'),
  })
  .meta({ id: 'DecideElevateRequest' });
export const CancelBody = z.strictObject({ comment: Text(2000).optional() }).meta({ id: 'CancelElevateRequest' });

export const RequestsQuery = PageQuery.extend({ state: RequestState.optional(), requesterId: z.uuid().optional(), policyId: z.uuid().optional() });
export const RequestResponse = z.object({ request: AccessRequest, grant: Grant.nullable().optional() }).meta({ id: 'ElevateRequestResponse' });
export const RequestsList = pageOf('requests', AccessRequest).meta({ id: 'ElevateRequestsList' });

export const GrantsQuery = PageQuery.extend({ state: GrantState.optional(), userId: z.uuid().optional(), policyId: z.uuid().optional() });
export const GrantResponse = z.object({ grant: Grant }).meta({ id: 'ElevateGrantResponse' });
export const GrantsList = pageOf('grants', Grant).meta({ id: 'ElevateGrantsList' });

export const ActivateBody = z
  .strictObject({ startAt: z.iso.datetime({ offset: true }).optional().describe('A future start (within the activation window); default now') })
  .meta({ id: 'ActivateElevateGrant' });
export const ExtendBody = z.strictObject({ durationSeconds: Seconds(30 * DAY) }).meta({ id: 'ExtendElevateGrant' });
export const ExtendResponse = z
  .object({
    grant: Grant,
    reapprovalRequired: z.boolean().describe('true: the policy requires approval of extensions; `request` is pending and the grant is unchanged'),
    request: AccessRequest.optional(),
  })
  .meta({ id: 'ExtendElevateGrantResponse' });
export const RevokeBody = z.strictObject({ reason: Text(2000).optional() }).meta({ id: 'RevokeElevateGrant' });
