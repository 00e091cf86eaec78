// The approval message of an access request as each channel kind formats it: Slack gets the Block Kit message with
// the buttons (names escaped, bounded), the other kinds keep their generic format; outcomes are plain on Slack.
import { describe, expect, it } from 'vitest';
import { buildChannelRequest, type ChannelEvent } from '../../lib/notifications/build-request.ts';
import { channelConfigSchemas, channelSecretSchemas } from '../../lib/notifications/channel-kinds.ts';

const ENV = '3f0c2a4e-1111-4000-8000-000000000001';
const REQ = '3f0c2a4e-2222-4000-8000-000000000002';
const ctx = { deliveryId: 'dlv_1', baseUrls: { pagerduty: 'http://127.0.0.1:1', datadog: null }, nowSeconds: 1_767_225_600 };

const requestEvent = (type: string): ChannelEvent => ({
  id: '3f0c2a4e-3333-4000-8000-000000000003',
  type,
  occurredAt: '2026-01-01T00:00:00.000Z',
  tenantId: '3f0c2a4e-4444-4000-8000-000000000004',
  environmentId: ENV,
  actor: { type: 'user', id: '3f0c2a4e-5555-4000-8000-000000000005' },
  subject: { type: 'elevate_request', id: REQ },
  data: {
    environmentId: ENV,
    request: { id: REQ, durationSeconds: 5400, justification: 'INC-42 <@here> & co', ticketId: null, expiresAt: '2026-01-01T01:00:00.000Z' },
    policy: { id: REQ, name: 'prod *admin*', target: { type: 'group', id: REQ, name: 'on-call' }, notificationChannelIds: [], escalationChannelIds: [] },
    requester: { id: REQ, userName: 'alice', displayName: 'Alice <Ops>' },
  },
});
const slack = (type: string) =>
  JSON.parse(buildChannelRequest('slack', {}, { webhookUrl: 'https://hooks.slack.com/services/T/B/X' }, requestEvent(type), ctx).body);

describe('elevate approval messages', () => {
  it('gives Slack a Block Kit message with Approve and Deny buttons naming the request, escaping what the tenant wrote', () => {
    const body = slack('elevate.request.created');
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Access request', emoji: false } });
    expect(body.blocks[1].text.text).toBe('*Alice &lt;Ops&gt; (alice)* asks for the group *on-call* under the policy *prod *admin** for 90 minutes.');
    expect(body.blocks[1].fields).toContainEqual({ type: 'mrkdwn', text: '*Justification*\nINC-42 &lt;@here&gt; &amp; co' });
    const actions = body.blocks.find((b: { type: string }) => b.type === 'actions');
    expect(actions.block_id).toBe('elevate_decision');
    expect(actions.elements.map((e: Record<string, string>) => [e.action_id, e.style, e.value])).toEqual([
      ['elevate_approve', 'primary', `${ENV}:${REQ}`],
      ['elevate_deny', 'danger', `${ENV}:${REQ}`],
    ]);
    expect(slack('elevate.request.reminded').blocks[0].text.text).toBe('Reminder: access request pending');
    expect(slack('elevate.request.escalated').blocks[0].text.text).toBe('Escalated: access request pending');
  });

  it('keeps outcomes plain on Slack and the generic format on Teams', () => {
    expect(slack('elevate.request.approved').blocks.some((b: { type: string }) => b.type === 'actions')).toBe(false);
    const teams = buildChannelRequest('teams', {}, { webhookUrl: 'https://example.webhook.office.com/x' }, requestEvent('elevate.request.created'), ctx);
    expect(teams.body).not.toContain('elevate_approve');
    expect(JSON.parse(teams.body).attachments[0].content.body[0].text).toBe('Elevate request created');
  });

  it('validates the Slack settings of approvals', () => {
    expect(channelConfigSchemas.slack.safeParse({ approverAttribute: 'slackUserId' }).success).toBe(true);
    expect(channelConfigSchemas.slack.safeParse({ approverAttribute: 'not an attribute' }).success).toBe(false);
    expect(channelSecretSchemas.slack.safeParse({ webhookUrl: 'https://hooks.slack.com/x', signingSecret: '' }).success).toBe(false);
    expect(channelSecretSchemas.slack.safeParse({ webhookUrl: 'https://hooks.slack.com/x', signingSecret: 'abc123' }).success).toBe(true);
  });
});
