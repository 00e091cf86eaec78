// The Slack approval message of an access request (elevate): who asks for what, with Approve and Deny buttons whose
// value names the request. Slack posts the click to the channel's interactivity endpoint (api/families/access/elevate/slack/).
import { formatDuration } from '../../durations.ts';
import { type ChannelEvent, truncate } from './summary.ts';

export const APPROVAL_BLOCK_ID = 'elevate_decision';
export const APPROVE_ACTION = 'elevate_approve';
export const DENY_ACTION = 'elevate_deny';

const HEADERS: Record<string, string> = {
  'elevate.request.created': 'Access request',
  'elevate.request.reminded': 'Reminder: access request pending',
  'elevate.request.escalated': 'Escalated: access request pending',
};

/** Slack mrkdwn treats `&`, `<` and `>` as control characters (links, mentions). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A button's value: the request, as `<environmentId>:<requestId>`. */
export const approvalValue = (environmentId: string, requestId: string) => `${environmentId}:${requestId}`;

export function parseApprovalValue(value: string): { environmentId: string; requestId: string } | null {
  const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  const match = new RegExp(`^(${uuid}):(${uuid})$`, 'i').exec(value);
  return match ? { environmentId: match[1]!, requestId: match[2]! } : null;
}

interface RequestEventData {
  environmentId: string;
  request: { id: string; durationSeconds: number; justification: string | null; ticketId: string | null; expiresAt: string };
  policy: { name: string; target?: { type: string; name: string } };
  requester: { userName: string; displayName: string | null };
}

const text = (value: string, max: number) => escapeMrkdwn(truncate(value.replace(/[\p{Cc}]+/gu, ' '), max));

/** The Block Kit blocks asking approvers to decide, for `elevate.request.created|reminded|escalated`; null for other events. */
export function slackApprovalBlocks(event: ChannelEvent): object[] | null {
  const header = HEADERS[event.type];
  if (!header) return null;
  const { environmentId, request, policy, requester } = event.data as unknown as RequestEventData;
  const who = requester.displayName ? `${requester.displayName} (${requester.userName})` : requester.userName;
  const target = policy.target ? `the ${policy.target.type} *${text(policy.target.name, 200)}*` : 'access';
  const ask = `*${text(who, 200)}* asks for ${target} under the policy *${text(policy.name, 200)}* for ${formatDuration(request.durationSeconds * 1000)}.`;
  const field = (label: string, value: string) => ({ type: 'mrkdwn', text: `*${label}*\n${text(value, 1900)}` });
  return [
    { type: 'header', text: { type: 'plain_text', text: header, emoji: false } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: ask },
      fields: [
        field('Justification', request.justification ?? '—'),
        field('Ticket', request.ticketId ?? '—'),
        field('Pending until', request.expiresAt),
        field('Request', request.id),
      ],
    },
    {
      type: 'actions',
      block_id: APPROVAL_BLOCK_ID,
      elements: [
        button('Approve', APPROVE_ACTION, 'primary', approvalValue(environmentId, request.id)),
        button('Deny', DENY_ACTION, 'danger', approvalValue(environmentId, request.id)),
      ],
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Event ID \`${escapeMrkdwn(event.id)}\`` }] },
  ];
}

const button = (label: string, actionId: string, style: 'primary' | 'danger', value: string) => ({
  type: 'button',
  text: { type: 'plain_text', text: label, emoji: false },
  style,
  action_id: actionId,
  value,
});
