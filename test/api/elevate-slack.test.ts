// Approvals from Slack: the interactivity endpoint receives exactly what Slack sends (a form-encoded `block_actions`
// payload signed with the app's signing secret, signed here independently with node:crypto), decides as the linked
// directory user, and tells the Slack user through the action's response_url (a real local receiver).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestApp;
let token: string;
let receiver: Receiver;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
let channelId: string;

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const LINKS: Record<string, string> = { alice: 'U0ALICE', bob: 'U0BOB', erin: 'U0ERIN' };

const now = () => Math.floor(Date.now() / 1000);

/** A `block_actions` payload as Slack sends it for a click on an approval message. */
function blockActions(slackUserId: string, actionId: string, value: string, responsePath: string) {
  return {
    type: 'block_actions',
    user: { id: slackUserId, username: slackUserId.toLowerCase(), name: slackUserId.toLowerCase(), team_id: 'T0TEAM' },
    api_app_id: 'A0APP',
    token: 'verification-token-unused',
    container: { type: 'message', message_ts: '1732380000.000100', channel_id: 'C0APPROVALS', is_ephemeral: false },
    trigger_id: '123.456.abc',
    team: { id: 'T0TEAM', domain: 'acme' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: 'C0APPROVALS', name: 'approvals' },
    message: {
      type: 'message',
      subtype: 'bot_message',
      text: 'Access request',
      ts: '1732380000.000100',
      bot_id: 'B0BOT',
      blocks: [
        { type: 'header', block_id: 'h', text: { type: 'plain_text', text: 'Access request', emoji: false } },
        { type: 'section', block_id: 's', text: { type: 'mrkdwn', text: '*alice* asks for the role *admin*', verbatim: false } },
        {
          type: 'actions',
          block_id: 'elevate_decision',
          elements: [
            { type: 'button', action_id: 'elevate_approve', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', value },
            { type: 'button', action_id: 'elevate_deny', text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value },
          ],
        },
      ],
    },
    state: { values: {} },
    response_url: `${receiver.url}${responsePath}`,
    actions: [
      {
        action_id: actionId,
        block_id: 'elevate_decision',
        text: { type: 'plain_text', text: actionId === 'elevate_approve' ? 'Approve' : 'Deny', emoji: true },
        value,
        style: actionId === 'elevate_approve' ? 'primary' : 'danger',
        type: 'button',
        action_ts: '1732380010.123456',
      },
    ],
  };
}

interface Click {
  slackUser: string;
  action?: 'elevate_approve' | 'elevate_deny';
  requestId: string;
  channel?: string;
  secret?: string;
  timestamp?: number;
  headers?: Record<string, string>;
  value?: string;
}

/** Posts a click as Slack does: `payload=<JSON>` form-encoded, signed `v0=HMAC-SHA256(secret, "v0:<ts>:<body>")`. */
async function click(c: Click) {
  const responsePath = `/actions/${crypto.randomUUID()}`;
  const payload = blockActions(c.slackUser, c.action ?? 'elevate_approve', c.value ?? `${env.environmentId}:${c.requestId}`, responsePath);
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(c.timestamp ?? now());
  const signature = `v0=${createHmac('sha256', c.secret ?? SIGNING_SECRET)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex')}`;
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/integrations/slack/interactivity/${c.channel ?? channelId}`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...c.headers,
    },
    payload: body,
  });
  const answers = () => receiver.received.filter((r) => r.path === responsePath).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  return { status: res.statusCode, body: res.body ? res.json() : undefined, answers };
}

const createChannel = async (tenantId: string, secrets: Record<string, string>, kind = 'slack', as = token, config = {}) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/notification-channels`,
    headers: bearer(as),
    payload: { kind, name: `Approvals ${crypto.randomUUID().slice(0, 8)}`, eventTypes: ['tenant.deleted'], secrets, config },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().channel.id as string;
};

const pending = async () => {
  const policyId = await env.policy({ notificationChannelIds: [channelId] });
  const res = await env.call('POST', '/requests', { policyId, requesterId: env.users.alice, durationSeconds: 600, justification: 'INC-42' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.request.id as string;
};
const requestOf = async (id: string) => (await env.call('GET', `/requests/${id}`)).body.request;

describe('approvals from Slack', () => {
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
    token = await t.token();
    env = await elevateEnvironment(t, token);
    for (const [userName, slackUserId] of Object.entries(LINKS)) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${env.users[userName]}`,
        headers: bearer(token),
        payload: { attributes: { slackUserId } },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    channelId = await createChannel(env.tenantId, { webhookUrl: `${receiver.url}/services/T0/B0/X`, signingSecret: SIGNING_SECRET });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('never returns the signing secret, only its hint', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${env.tenantId}/notification-channels/${channelId}`, headers: bearer(token) });
    expect(res.body).not.toContain(SIGNING_SECRET);
    expect(res.json().channel.secretHints).toMatchObject({ signingSecret: '…85a5' });
  });

  it('approves as the linked approver: the request is approved with its grant, and the message loses its buttons', async () => {
    const id = await pending();
    const res = await click({ slackUser: LINKS.bob!, requestId: id });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const request = await requestOf(id);
    expect(request).toMatchObject({ state: 'approved', decisions: [{ approverId: env.users.bob, decision: 'approve', comment: 'via Slack' }] });
    expect(request.grantId).toEqual(expect.any(String));
    await expect.poll(() => res.answers().length, { timeout: 10_000 }).toBe(1);
    const update = res.answers()[0]!;
    expect(update).toMatchObject({ replace_original: true, text: '*Approved* by <@U0BOB>: the request is approved.' });
    expect((update.blocks as { type: string }[]).map((b) => b.type)).toEqual(['header', 'section', 'section']);

    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.subject?.id === id);
    expect(events.at(-1)).toMatchObject({ type: 'elevate.request.approved', actor: { type: 'user', id: env.users.bob } });
    const audit = (await auditEntries(t, { tenantId: env.tenantId })).filter((e) => e.resource.id === id);
    expect(audit.at(-1)).toMatchObject({
      action: 'elevate.request.approved',
      actor: { type: 'user', id: env.users.bob },
      userAgent: expect.stringContaining('Slackbot'),
    });

    // The same click again (Slack retries, a double click): already decided, never a second decision.
    const again = await click({ slackUser: LINKS.bob!, requestId: id });
    expect(again.status).toBe(200);
    await expect.poll(() => again.answers().length, { timeout: 10_000 }).toBe(1);
    expect(again.answers()[0]).toEqual({ response_type: 'ephemeral', replace_original: false, text: 'Not decided: The request is already approved.' });
    expect((await requestOf(id)).decisions).toHaveLength(1);
  });

  it('denies', async () => {
    const id = await pending();
    const res = await click({ slackUser: LINKS.bob!, requestId: id, action: 'elevate_deny' });
    expect(res.status).toBe(200);
    expect(await requestOf(id)).toMatchObject({ state: 'denied', grantId: null, decisions: [{ approverId: env.users.bob, decision: 'deny' }] });
    await expect.poll(() => res.answers().length, { timeout: 10_000 }).toBe(1);
    expect(res.answers()[0]).toMatchObject({ replace_original: true, text: '*Denied* by <@U0BOB>: the request is denied.' });
  });

  it('tells a non-approver, the requester and an unlinked Slack user why nothing was decided', async () => {
    const id = await pending();
    const cases = [
      [LINKS.erin!, `Not decided: The user is not an approver of the policy`],
      [LINKS.alice!, 'Not decided: A requester never decides on its own request.'],
      ['U0NOBODY', 'Your Slack account is not linked to a directory user: ask an administrator to set the `slackUserId` attribute of your user to `U0NOBODY`.'],
    ] as const;
    for (const [slackUser, text] of cases) {
      const res = await click({ slackUser, requestId: id });
      expect(res).toMatchObject({ status: 200, body: { ok: true } });
      await expect.poll(() => res.answers().length, { timeout: 10_000 }).toBe(1);
      expect(res.answers()[0]).toMatchObject({ response_type: 'ephemeral', replace_original: false, text: expect.stringContaining(text) });
    }
    expect(await requestOf(id)).toMatchObject({ state: 'pending', decisions: [] });
  });

  it('answers a button value that names no request with a 400, never a 5xx', async () => {
    for (const value of ['garbage', `${'-'.repeat(36)}:${'-'.repeat(36)}`, `${crypto.randomUUID()}:${crypto.randomUUID()}`.replace(/-/g, 'x')]) {
      const res = await click({ slackUser: LINKS.bob!, requestId: 'unused', value });
      expect(res, value).toMatchObject({ status: 400, body: { code: 'request.invalid', details: [{ path: 'body.payload.actions[0].value' }] } });
    }
  });

  it("reads the channel's approverAttribute, and a channel bound to another environment decides nothing", async () => {
    const attributes = { slackUserId: LINKS.bob!, chatId: 'U0BOBCHAT' };
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${env.users.bob}`,
      headers: bearer(token),
      payload: { attributes },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const custom = await createChannel(env.tenantId, { webhookUrl: `${receiver.url}/services/T0/B0/C`, signingSecret: SIGNING_SECRET }, 'slack', token, {
      approverAttribute: 'chatId',
    });
    const id = await pending();
    const unlinked = await click({ slackUser: LINKS.bob!, requestId: id, channel: custom });
    await expect.poll(() => unlinked.answers().length, { timeout: 10_000 }).toBe(1);
    expect(unlinked.answers()[0]).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('the `chatId` attribute') });

    const elsewhere = (await newEnvironments(t, token)).environmentIds[0];
    const bound = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/notification-channels`,
      headers: bearer(token),
      payload: {
        kind: 'slack',
        name: 'Elsewhere',
        eventTypes: ['tenant.deleted'],
        environmentId: elsewhere,
        secrets: { webhookUrl: `${receiver.url}/services/T0/B0/E`, signingSecret: SIGNING_SECRET },
      },
    });
    expect(bound.statusCode, bound.body).toBe(201);
    expect((await click({ slackUser: 'U0BOBCHAT', requestId: id, channel: bound.json().channel.id })).status).toBe(401);

    const approved = await click({ slackUser: 'U0BOBCHAT', requestId: id, channel: custom });
    expect(approved.status).toBe(200);
    expect(await requestOf(id)).toMatchObject({ state: 'approved', decisions: [{ approverId: env.users.bob, comment: 'via Slack' }] });
  });

  it('refuses with the same 401, changing nothing, whatever is wrong with the signature or the channel', async () => {
    const id = await pending();
    const webhook = await createChannel(env.tenantId, { signingSecret: SIGNING_SECRET }, 'webhook', token, { url: `${receiver.url}/hooks` });
    const unsigned = await createChannel(env.tenantId, { webhookUrl: `${receiver.url}/services/T0/B0/Y` });
    const other = await otherOrganization(t);
    const theirTenant = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'Theirs' } });
    expect(theirTenant.statusCode, theirTenant.body).toBe(201);
    const theirs = await createChannel(
      theirTenant.json().tenant.id,
      { webhookUrl: `${receiver.url}/services/T1/B1/Z`, signingSecret: SIGNING_SECRET },
      'slack',
      other.token,
    );
    const attempts: Click[] = [
      { slackUser: LINKS.bob!, requestId: id, secret: 'not-the-signing-secret' },
      { slackUser: LINKS.bob!, requestId: id, timestamp: now() - 6 * 60 },
      { slackUser: LINKS.bob!, requestId: id, timestamp: now() + 6 * 60 },
      { slackUser: LINKS.bob!, requestId: id, headers: { 'x-slack-signature': '' } },
      { slackUser: LINKS.bob!, requestId: id, headers: { 'x-slack-request-timestamp': 'yesterday' } },
      { slackUser: LINKS.bob!, requestId: id, channel: crypto.randomUUID() },
      { slackUser: LINKS.bob!, requestId: id, channel: 'not-a-uuid' },
      { slackUser: LINKS.bob!, requestId: id, channel: webhook },
      { slackUser: LINKS.bob!, requestId: id, channel: unsigned },
      { slackUser: LINKS.bob!, requestId: id, channel: theirs },
    ];
    for (const attempt of attempts) {
      const res = await click(attempt);
      expect({ status: res.status, code: res.body?.code }, JSON.stringify(attempt)).toEqual({ status: 401, code: 'slack.invalid_signature' });
    }
    const missing = await t.app.inject({
      method: 'POST',
      url: `/v1/integrations/slack/interactivity/${channelId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'payload=%7B%7D',
    });
    expect(missing.statusCode).toBe(401);
    expect(await requestOf(id)).toMatchObject({ state: 'pending', decisions: [] });
  });
});
