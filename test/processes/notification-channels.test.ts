import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../lib/webhook-signature.js';
import { bearer } from '../helpers/app.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestAppWithProcesses;
let token: string;
let receiver: Receiver;

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attemptCount: number;
}
const base = () => `/v1/tenants/${t.credentials.tenantId}/notification-channels`;
const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url: `${base()}${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

async function createChannel(kind: string, secrets: object, config: object = {}, eventTypes = ['tenant.updated']) {
  const res = await api('POST', '', { kind, name: `${kind} channel`, eventTypes, config, secrets });
  expect(res.statusCode).toBe(201);
  return res.json() as { channel: { id: string }; signingSecret?: string };
}
const emitTenantEvent = async (description: string) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(token), payload: { description } });
  expect(res.statusCode).toBe(200);
};
const deliveriesOf = async (channelId: string) => (await api('GET', `/${channelId}/deliveries`)).json().deliveries as Delivery[];
const settled = async (channelId: string) => {
  await expect
    .poll(async () => (await deliveriesOf(channelId)).filter((d) => d.status !== 'pending').length, { timeout: 15_000, interval: 100 })
    .toBeGreaterThanOrEqual(1);
  return (await deliveriesOf(channelId))[0]!;
};
const requestsTo = (path: string) => receiver.received.filter((r) => r.path === path);
const only = <T>(items: T[]) => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

describe.each(ENGINES)('notification channel deliveries (%s)', (engine) => {
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestAppWithProcesses({ engine, env: { PAGERDUTY_EVENTS_URL: receiver.url, DATADOG_API_URL: receiver.url } });
    token = await t.token();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it("delivers an event to every kind in its provider's own format", async () => {
    const routingKey = `pd-routing-${crypto.randomUUID()}`;
    const apiKey = `dd-api-key-${crypto.randomUUID()}`;
    const slack = await createChannel('slack', { webhookUrl: `${receiver.url}/slack/services/T0/B0/XXXXXXXXXXXX` });
    const teams = await createChannel('teams', { webhookUrl: `${receiver.url}/teams/webhookb2/XXXXXXXXXXXX` });
    const pagerduty = await createChannel('pagerduty', { routingKey }, { source: 'iam-test' });
    const datadog = await createChannel('datadog', { apiKey }, { tags: ['team:iam'] });
    const webhook = await createChannel('webhook', {}, { url: `${receiver.url}/generic` });
    await emitTenantEvent('formats');
    const deliveries = await Promise.all([slack, teams, pagerduty, datadog, webhook].map((c) => settled(c.channel.id)));
    for (const d of deliveries) expect(d).toMatchObject({ status: 'succeeded', attemptCount: 1, eventId: deliveries[0]!.eventId });
    const eventId = deliveries[0]!.eventId;

    const slackBody = JSON.parse(only(requestsTo('/slack/services/T0/B0/XXXXXXXXXXXX')).body);
    expect(slackBody.text).toMatch(/^Tenant updated/);
    expect(slackBody.blocks.map((b: { type: string }) => b.type)).toEqual(['header', 'section', 'context']);
    expect(slackBody.blocks[0].text).toMatchObject({ type: 'plain_text', text: 'Tenant updated' });
    expect(JSON.stringify(slackBody.blocks[2])).toContain(eventId);

    const teamsBody = JSON.parse(only(requestsTo('/teams/webhookb2/XXXXXXXXXXXX')).body);
    expect(teamsBody).toMatchObject({
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4' } }],
    });
    expect(teamsBody.attachments[0].content.body[0]).toMatchObject({ type: 'TextBlock', text: 'Tenant updated' });

    const pd = only(requestsTo('/v2/enqueue').filter((r) => JSON.parse(r.body).routing_key === routingKey));
    expect(JSON.parse(pd.body)).toMatchObject({
      routing_key: routingKey,
      event_action: 'trigger',
      dedup_key: eventId,
      payload: {
        source: 'iam-test',
        severity: 'info',
        class: 'tenant.updated',
        group: `tenant:${t.credentials.tenantId}`,
        custom_details: { event_id: eventId },
      },
    });

    const dd = only(requestsTo('/api/v1/events').filter((r) => r.headers['dd-api-key'] === apiKey));
    expect(JSON.parse(dd.body)).toMatchObject({
      aggregation_key: eventId,
      alert_type: 'info',
      tags: expect.arrayContaining(['event_type:tenant.updated', 'team:iam']),
    });

    const generic = only(requestsTo('/generic'));
    expect(generic.headers).toMatchObject({
      'x-service-event-id': eventId,
      'x-service-event-type': 'tenant.updated',
      'x-service-delivery-id': deliveries[4]!.id,
    });
    expect(verifyWebhookSignature(generic.body, String(generic.headers['x-service-signature']), [webhook.signingSecret!])).toBe(true);
    expect(verifyWebhookSignature(generic.body, String(generic.headers['x-service-signature']), ['whsec_wrong'])).toBe(false);
    expect(JSON.parse(generic.body)).toMatchObject({ id: eventId, type: 'tenant.updated', data: { tenant: { description: 'formats' } } });
  });

  it('retries a channel that answered 500 and shows every attempt', async () => {
    const { channel } = await createChannel('teams', { webhookUrl: `${receiver.url}/teams-flaky` });
    receiver.script('/teams-flaky', 500);
    await emitTenantEvent('flaky');
    const delivery = await settled(channel.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    const detail = (await api('GET', `/${channel.id}/deliveries/${delivery.id}`)).json();
    expect(detail.delivery).toMatchObject({ id: delivery.id, channelId: channel.id, endpointId: null, eventType: 'tenant.updated' });
    expect(detail.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(requestsTo('/teams-flaky')).toHaveLength(2);
    expect((await api('GET', `/${channel.id}/deliveries?status=failed`)).json()).toEqual({ deliveries: [], nextCursor: null, hasMore: false });
    expect((await api('GET', `/${channel.id}/deliveries/${crypto.randomUUID()}`)).statusCode).toBe(404);
  });

  it('sends a test notification right away and reports what the provider answered', async () => {
    const ok = await createChannel('slack', { webhookUrl: `${receiver.url}/slack-test` }, {}, ['tenant.created']);
    const res = await api('POST', `/${ok.channel.id}/test`);
    expect(res.statusCode).toBe(200);
    const result = res.json();
    expect(result).toEqual({ success: true, statusCode: 200, error: null, responseExcerpt: 'ok', durationMs: expect.any(Number), eventId: expect.any(String) });
    const sent = JSON.parse(only(requestsTo('/slack-test')).body);
    expect(sent.blocks[0].text.text).toBe('Notification channel tested');
    expect(sent.text).toContain('slack channel');
    expect(JSON.stringify(sent.blocks[2])).toContain(result.eventId);

    const refused = await createChannel('teams', { webhookUrl: `${receiver.url}/teams-401` }, {}, ['tenant.created']);
    receiver.script('/teams-401', { status: 401, body: 'invalid webhook token' });
    const failed = await api('POST', `/${refused.channel.id}/test`);
    expect(failed.statusCode).toBe(200);
    expect(failed.json()).toMatchObject({ success: false, statusCode: 401, error: null, responseExcerpt: 'invalid webhook token' });

    const down = await createChannel('webhook', {}, { url: 'http://127.0.0.1:9/nothing-listens' }, ['tenant.created']);
    expect((await api('POST', `/${down.channel.id}/test`)).json()).toMatchObject({ success: false, statusCode: null, error: 'connection refused' });
  });

  it('delivers a test once even to a channel subscribed to notification_channel.tested', async () => {
    const { channel } = await createChannel('slack', { webhookUrl: `${receiver.url}/slack-self` }, {}, ['notification_channel.*']);
    expect((await api('POST', `/${channel.id}/test`)).json().success).toBe(true);
    // A later event the channel subscribes to: once it is delivered, the dispatcher has passed the test event.
    expect((await api('PATCH', `/${channel.id}`, { name: 'slack channel, renamed' })).statusCode).toBe(200);
    await expect
      .poll(async () => (await deliveriesOf(channel.id)).filter((d) => d.eventType === 'notification_channel.updated' && d.status !== 'pending').length, {
        timeout: 15_000,
        interval: 50,
      })
      .toBe(1);
    const tests = requestsTo('/slack-self').filter((r) => JSON.parse(r.body).blocks[0].text.text === 'Notification channel tested');
    expect(tests).toHaveLength(1);
    expect((await deliveriesOf(channel.id)).filter((d) => d.eventType === 'notification_channel.tested')).toEqual([]);
  });
});
