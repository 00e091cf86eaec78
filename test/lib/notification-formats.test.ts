import { createHmac, timingSafeEqual } from 'node:crypto';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChannelRequest, type BuildContext, type ChannelEvent, type ChannelRequest } from '../../lib/notifications/build-request.ts';
import { channelConfigSchemas, channelSecretSchemas, secretHints } from '../../lib/notifications/channel-kinds.ts';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

const received: Received[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
    res.writeHead(req.url === '/v2/enqueue' ? 202 : 200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const NOW = 1_767_225_600;
const ctx = (): BuildContext => ({ deliveryId: 'dlv_123', baseUrls: { pagerduty: base, datadog: base }, nowSeconds: NOW });

function event(overrides: Partial<ChannelEvent> = {}): ChannelEvent {
  return {
    id: 'evt_0b7f3c1e-5a2d-4e9b-9c61-2f8a1d3e4b5c',
    type: 'tenant.created',
    occurredAt: new Date((NOW - 60) * 1000).toISOString(),
    tenantId: '1b2c3d4e-0000-4000-8000-000000000001',
    environmentId: 'env_prod',
    actor: { type: 'user', id: 'usr_42' },
    subject: { type: 'tenant', id: '1b2c3d4e-0000-4000-8000-000000000001' },
    data: { tenant: { name: 'Acme <Corp> & Co' } },
    ...overrides,
  };
}

async function deliver(request: ChannelRequest): Promise<Received & { json: Record<string, unknown> }> {
  const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
  expect(response.ok).toBe(true);
  const last = received.at(-1)!;
  expect(last.method).toBe('POST');
  expect(last.headers['content-type']).toBe('application/json');
  expect(last.raw.toString('utf8')).toBe(request.body);
  return { ...last, json: JSON.parse(last.raw.toString('utf8')) as Record<string, unknown> };
}

const BLOCK_KIT_TYPES = ['actions', 'context', 'divider', 'file', 'header', 'image', 'input', 'markdown', 'rich_text', 'section', 'video'];

describe('slack', () => {
  it('posts Block Kit with a header block and a text fallback', async () => {
    const webhookUrl = `${base}/services/T0000/B0000/XXXXXXXXXXXXabcd`;
    const got = await deliver(buildChannelRequest('slack', {}, { webhookUrl }, event(), ctx()));
    expect(got.path).toBe('/services/T0000/B0000/XXXXXXXXXXXXabcd');
    const body = got.json as { text: string; blocks: Array<Record<string, unknown>> };
    expect(body.text).toBe('Tenant created: Acme &lt;Corp&gt; &amp; Co (tenant 1b2c3d4e…)');
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text', text: 'Tenant created' } });
    for (const block of body.blocks) expect(BLOCK_KIT_TYPES).toContain(block.type);
    const section = body.blocks.find((b) => b.type === 'section') as { fields: Array<{ type: string; text: string }> };
    expect(section.fields.length).toBeLessThanOrEqual(10);
    expect(section.fields).toContainEqual({ type: 'mrkdwn', text: '*Event*\n`tenant.created`' });
  });
});

describe('teams', () => {
  it('posts one Adaptive Card 1.4 attachment', async () => {
    const webhookUrl = `${base}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=secretsig`;
    const got = await deliver(buildChannelRequest('teams', {}, { webhookUrl }, event(), ctx()));
    expect(got.path).toBe('/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=secretsig');
    expect(got.json.type).toBe('message');
    const attachments = got.json.attachments as Array<Record<string, unknown>>;
    expect(attachments).toHaveLength(1);
    expect(attachments[0]).toMatchObject({ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null });
    const card = attachments[0]!.content as { type: string; version: string; $schema: string; body: Array<Record<string, unknown>> };
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json' });
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: 'Tenant created' });
    for (const element of card.body) expect(['TextBlock', 'FactSet']).toContain(element.type);
    const facts = card.body.find((e) => e.type === 'FactSet')!.facts as Array<{ title: string; value: string }>;
    expect(facts).toContainEqual({ title: 'Tenant', value: event().tenantId });
  });
});

describe('pagerduty', () => {
  const send = (type: string, severityMap?: Record<string, 'critical' | 'error' | 'warning' | 'info'>) =>
    deliver(buildChannelRequest('pagerduty', { severityMap }, { routingKey: 'R0UT1NGKEY0000000000000000000000' }, event({ type }), ctx()));

  it('enqueues an Events API v2 trigger deduplicated by event id', async () => {
    const got = await send('webhook.endpoint.disabled');
    expect(got.path).toBe('/v2/enqueue');
    const payload = got.json.payload as Record<string, unknown>;
    expect(got.json).toMatchObject({ routing_key: 'R0UT1NGKEY0000000000000000000000', event_action: 'trigger', dedup_key: event().id });
    expect(payload).toMatchObject({ severity: 'error', source: 'iam-service', class: 'webhook.endpoint.disabled' });
    expect(payload.timestamp).toBe(new Date(payload.timestamp as string).toISOString());
    expect((payload.summary as string).length).toBeLessThanOrEqual(1024);
  });

  it('maps severities by default and lets config override by type or prefix', async () => {
    const severity = async (type: string, map?: Record<string, 'critical' | 'error' | 'warning' | 'info'>) =>
      ((await send(type, map)).json.payload as { severity: string }).severity;
    expect(await severity('tenant.created')).toBe('info');
    expect(await severity('webhook.delivery.failed')).toBe('error');
    expect(await severity('tenant.deleted')).toBe('warning');
    expect(await severity('webhook.endpoint.disabled', { 'webhook.*': 'critical' })).toBe('critical');
    expect(await severity('webhook.endpoint.disabled', { 'webhook.endpoint.disabled': 'warning', 'webhook.*': 'critical' })).toBe('warning');
    expect(await severity('tenant.created', { '*': 'warning' })).toBe('warning');
  });

  it('caps the summary at 1024 characters', async () => {
    const got = await send(`x.${'a'.repeat(3000)}`);
    expect((got.json.payload as { summary: string }).summary).toHaveLength(1024);
  });
});

describe('datadog', () => {
  it('posts to /api/v1/events with the API key header and tags', async () => {
    const config = { tags: ['team:iam'] };
    const got = await deliver(buildChannelRequest('datadog', config, { apiKey: 'dd0123456789abcdef' }, event({ type: 'webhook.endpoint.disabled' }), ctx()));
    expect(got.path).toBe('/api/v1/events');
    expect(got.headers['dd-api-key']).toBe('dd0123456789abcdef');
    expect(Number.isInteger(got.json.date_happened)).toBe(true);
    expect(got.json.date_happened).toBe(NOW - 60);
    expect(['error', 'warning', 'info', 'success']).toContain(got.json.alert_type);
    expect(got.json.alert_type).toBe('error');
    expect(got.json.tags).toEqual(expect.arrayContaining([`tenant:${event().tenantId}`, 'event_type:webhook.endpoint.disabled', 'team:iam']));
    expect(got.json.aggregation_key).toBe(event().id);
  });

  it('targets https://api.<site> unless a base URL is configured', () => {
    const noBase = { ...ctx(), baseUrls: { pagerduty: base, datadog: null } };
    expect(buildChannelRequest('datadog', {}, { apiKey: 'k' }, event(), noBase).url).toBe('https://api.datadoghq.com/api/v1/events');
    expect(buildChannelRequest('datadog', { site: 'us5.datadoghq.com' }, { apiKey: 'k' }, event(), noBase).url).toBe(
      'https://api.us5.datadoghq.com/api/v1/events',
    );
    expect(channelConfigSchemas.datadog.safeParse({ site: 'evil.com/path?' }).success).toBe(false);
  });
});

describe('generic webhook', () => {
  it('signs the exact body it sends', async () => {
    const signingSecret = 'whsec_0123456789abcdef0123456789';
    const got = await deliver(buildChannelRequest('webhook', { url: `${base}/hooks/iam` }, { signingSecret }, event(), ctx()));
    expect(got.path).toBe('/hooks/iam');
    expect(got.json).toEqual({ id: event().id, type: 'tenant.created', createdAt: event().occurredAt, data: event().data });
    expect(got.headers).toMatchObject({ 'x-service-event-id': event().id, 'x-service-event-type': 'tenant.created', 'x-service-delivery-id': 'dlv_123' });
    const match = /^t=(\d+), v1=([0-9a-f]{64})$/.exec(got.headers['x-service-signature'] as string);
    expect(match?.[1]).toBe(String(NOW));
    const expected = createHmac('sha256', signingSecret).update(`${match![1]}.`).update(got.raw).digest();
    expect(timingSafeEqual(expected, Buffer.from(match![2]!, 'hex'))).toBe(true);
  });

  it('refuses to build without a signing secret', () => {
    expect(() => buildChannelRequest('webhook', { url: `${base}/hooks/iam` }, {}, event(), ctx())).toThrow(/signing secret/);
  });
});

describe('channel schemas', () => {
  const paths = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) => result.error?.issues.map((issue) => issue.path);

  it('reject missing secrets with the field path', () => {
    expect(paths(channelSecretSchemas.slack.safeParse({}))).toEqual([['webhookUrl']]);
    expect(paths(channelSecretSchemas.teams.safeParse({ webhookUrl: 'not a url' }))).toEqual([['webhookUrl']]);
    expect(paths(channelSecretSchemas.pagerduty.safeParse({}))).toEqual([['routingKey']]);
    expect(paths(channelSecretSchemas.datadog.safeParse({ apiKey: '  ' }))).toEqual([['apiKey']]);
    expect(channelSecretSchemas.webhook.safeParse({}).success).toBe(true);
  });

  it('keep secrets out of config', () => {
    const result = channelConfigSchemas.slack.safeParse({ webhookUrl: 'https://hooks.slack.com/services/T/B/X' });
    expect(result.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['webhookUrl'] });
    expect(paths(channelConfigSchemas.pagerduty.safeParse({ severityMap: { 'webhook.**': 'error' } }))).toEqual([['severityMap', 'webhook.**']]);
    expect(paths(channelConfigSchemas.pagerduty.safeParse({ severityMap: { 'tenant.*': 'fatal' } }))).toEqual([['severityMap', 'tenant.*']]);
  });
});

describe('secretHints', () => {
  it('masks every secret field', () => {
    const webhookUrl = 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/XXXXXXXXXXXXXXXXXXXXabcd';
    expect(secretHints('slack', { webhookUrl })).toEqual({ webhookUrl: 'https://hooks.slack.com/services/…abcd' });
    expect(secretHints('pagerduty', { routingKey: 'R0UT1NGKEY00000000000000000wxyz' })).toEqual({ routingKey: '…wxyz' });
    expect(secretHints('datadog', { apiKey: 'short' })).toEqual({ apiKey: '…' });
    expect(secretHints('webhook', {})).toEqual({});
    const telegramLike = 'https://api.example.com/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/send';
    expect(secretHints('teams', { webhookUrl: telegramLike }).webhookUrl).toBe('https://api.example.com/…send');
    for (const [secret, hint] of [[webhookUrl, secretHints('slack', { webhookUrl }).webhookUrl]]) {
      expect(hint).not.toContain(secret);
      expect(hint).not.toContain('XXXXXXXX');
    }
  });
});
