// Elevate events reach the policy's channels through the durable channel deliveries, on both engines: the approval
// message (with Approve and Deny buttons naming the request) and the reminder go to the notification channels, the
// escalation to the escalation channels, and the outcome to the notification channels; once each, even for a
// channel that also subscribes to the event type. A real local receiver stands in for Slack's incoming webhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestAppWithProcesses;
let receiver: Receiver;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
const POLL = { timeout: 30_000, interval: 100 };

interface SlackMessage {
  text: string;
  blocks: { type: string; block_id?: string; text?: { text: string }; elements?: Record<string, unknown>[] }[];
}
const messagesAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as SlackMessage);
const headers = (path: string) => messagesAt(path).map((m) => m.blocks[0]!.text!.text);

describe.each(ENGINES)('elevate notifications to the policy channels (%s)', (engine) => {
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestAppWithProcesses({ engine });
    env = await elevateEnvironment(t, await t.token());
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('sends the approval message with its buttons, the reminder and the outcome to the notification channel, the escalation to the escalation channel', async () => {
    const slack = async (path: string, eventTypes: string[]) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/tenants/${env.tenantId}/notification-channels`,
        headers: bearer(await t.token()),
        payload: { kind: 'slack', name: `${path}-${engine}`, eventTypes, secrets: { webhookUrl: `${receiver.url}${path}` } },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().channel.id as string;
    };
    const notifyPath = `/services/T0/B0/notify-${engine}`;
    const escalatePath = `/services/T0/B0/escalate-${engine}`;
    // Subscribed to the creation itself as well: still one approval message.
    const notify = await slack(notifyPath, ['elevate.request.created']);
    const escalate = await slack(escalatePath, ['tenant.deleted']);
    const policyId = await env.policy({ requestTtlSeconds: 4, notificationChannelIds: [notify], escalationChannelIds: [escalate] });
    const { id } = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice, durationSeconds: 600, justification: 'INC-7' })).body.request;

    await expect.poll(() => headers(notifyPath), POLL).toEqual(['Access request', 'Reminder: access request pending', 'Elevate request expired']);
    await expect.poll(() => headers(escalatePath), POLL).toEqual(['Escalated: access request pending']);

    const [created] = messagesAt(notifyPath);
    expect(created!.blocks[1]!.text!.text).toBe('*alice* asks for the role *admin* under the policy *' + (await policyName(policyId)) + '* for 10 minutes.');
    const value = `${env.environmentId}:${id}`;
    expect(created!.blocks.find((b) => b.type === 'actions')).toEqual({
      type: 'actions',
      block_id: 'elevate_decision',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Approve', emoji: false }, style: 'primary', action_id: 'elevate_approve', value },
        { type: 'button', text: { type: 'plain_text', text: 'Deny', emoji: false }, style: 'danger', action_id: 'elevate_deny', value },
      ],
    });
    expect(
      messagesAt(escalatePath)[0]!
        .blocks.find((b) => b.type === 'actions')!
        .elements!.map((e) => e.value),
    ).toEqual([value, value]);
    // The outcome is a plain message.
    expect(messagesAt(notifyPath)[2]!.blocks.some((b) => b.type === 'actions')).toBe(false);
  });
});

const policyName = async (policyId: string) => (await env.call('GET', `/policies/${policyId}`)).body.policy.name as string;
