// Events of elevate, assembled into the event catalog (db/event-catalog.ts). Each carries what a notification
// channel needs to say it in one line: the policy's name, the requester, the duration and justification, the ids.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { AccessRequest, Grant, Policy } from './rows.ts';

const policy = z.looseObject({ policy: Policy });
const context = {
  environmentId: z.uuid(),
  // The policy's channels, for a consumer (a chat approval integration) that routes by policy.
  policy: z.looseObject({
    id: z.uuid(),
    name: z.string(),
    target: z.looseObject({ type: z.enum(['role', 'group']), id: z.uuid(), name: z.string() }),
    notificationChannelIds: z.array(z.uuid()),
    escalationChannelIds: z.array(z.uuid()),
  }),
  requester: z.looseObject({ id: z.uuid(), userName: z.string(), displayName: z.string().nullable() }),
};
const request = z.looseObject({ request: AccessRequest, ...context });
const grant = z.looseObject({ grant: Grant, ...context });

export const ELEVATE_EVENTS = {
  'elevate.policy.created': { description: 'An elevate policy was created.', data: policy },
  'elevate.policy.updated': { description: 'An elevate policy was changed.', data: policy },
  'elevate.policy.deleted': { description: 'An elevate policy was deleted with its requests and grants; `policy` is its last state.', data: policy },
  'elevate.request.created': { description: 'A user asked for elevated access under a policy; approvers are to decide.', data: request },
  'elevate.request.approved': { description: 'An access request got its approvals (or met the auto-approval condition): a grant was made.', data: request },
  'elevate.request.approval_recorded': {
    description: 'An approver approved an access request that needs more approvals than it has yet.',
    data: request,
  },
  'elevate.request.denied': { description: 'An approver denied an access request.', data: request },
  'elevate.request.cancelled': { description: 'The requester (or an operator) withdrew a pending access request.', data: request },
  'elevate.request.expired': { description: 'An access request was not decided within its time to live.', data: request },
  'elevate.request.reminded': { description: 'An access request is still pending halfway through its time to live: a reminder to approvers.', data: request },
  'elevate.request.escalated': {
    description: "An access request is still pending three quarters through its time to live: escalated to the policy's escalation channels.",
    data: request,
  },
  'elevate.grant.created': { description: 'An approved request made a grant, waiting for its activation.', data: grant },
  'elevate.grant.activated': { description: 'The grantee activated a grant: its role or membership counts in decisions until it expires.', data: grant },
  'elevate.grant.extended': { description: 'An active grant was extended.', data: grant },
  'elevate.grant.revoked': { description: 'A grant was revoked before its end.', data: grant },
  'elevate.grant.expired': { description: 'A grant ended: its expiry came, or its activation window passed without activation.', data: grant },
} as const satisfies Record<string, EventTypeEntry>;
