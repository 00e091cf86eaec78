// The messages of an environment (GET …/messages, …/messages/{id}): queued when a provider of the channel is active,
// listed newest first with filters and pages, never with their content; the log sender (no provider) records none.
// No process runs here: the messages stay queued (sending is test/processes/message-send.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let quiet: string;
let base: string;

const call = (method: 'GET' | 'PUT', url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const list = async (query = '') => {
  const res = await call('GET', `${base}/messages${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  tenantId = t.credentials.tenantId;
  [environmentId, quiet] = (await newEnvironments(t, token)).environmentIds as [string, string];
  base = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  const postmark = { provider: 'postmark', active: true, config: { from: 'noreply@example.com' }, secrets: { serverToken: 'postmark-token-0123456789' } };
  expect((await call('PUT', `${base}/email-providers/postmark`, postmark)).statusCode).toBe(200);
  const twilio = { config: { accountSid: `AC${'2'.repeat(32)}`, from: '+14155552671' }, secrets: { authToken: 'twilio-token-0123456789' } };
  expect((await call('PUT', `${base}/sms-providers/twilio`, twilio)).statusCode).toBe(201);
  const send = t.app.messages.sender.send;
  await send({ template: 'verification', params: { code: '111111' }, to: 'Ada@Example.com', environmentId, locale: 'fr' });
  await send({ template: 'password_reset', params: { link: 'https://id.example.com/password/secret-link' }, to: 'bob@example.com', environmentId });
  await send({ template: 'sms_code', params: { code: '222222' }, to: '+12025550123', environmentId });
});
afterAll(() => t.close());

describe('messages', () => {
  it('lists the queued messages newest first, with their record and never their content', async () => {
    const page = await list();
    expect(page).toEqual({ messages: expect.any(Array), total: 3, nextCursor: null, hasMore: false });
    expect(page.messages.map((m: { kind: string }) => m.kind)).toEqual(['sms_code', 'password_reset', 'sign_up_code']);
    expect(page.messages[2]).toEqual({
      id: expect.any(String),
      environmentId,
      channel: 'email',
      kind: 'sign_up_code',
      template: 'verification',
      recipient: 'Ada@Example.com',
      locale: 'fr',
      status: 'queued',
      providers: ['postmark'],
      provider: null,
      providerMessageId: null,
      attempts: 0,
      lastError: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      sentAt: null,
      failedAt: null,
      bouncedAt: null,
    });
    expect(page.messages[0]).toMatchObject({ channel: 'sms', template: 'sms_code', recipient: '+12025550123', providers: ['twilio'], locale: 'en' });
    const body = JSON.stringify(page);
    for (const secret of ['111111', '222222', 'secret-link']) expect(body).not.toContain(secret);
    const one = await call('GET', `${base}/messages/${page.messages[1].id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ message: page.messages[1] });
  });

  it('filters by status, kind and recipient (case-insensitive), and pages', async () => {
    expect((await list('?kind=password_reset')).messages.map((m: { recipient: string }) => m.recipient)).toEqual(['bob@example.com']);
    expect((await list('?recipient=ada@example.COM')).total).toBe(1);
    expect((await list('?status=queued')).total).toBe(3);
    expect(await list('?status=sent')).toEqual({ messages: [], total: 0, nextCursor: null, hasMore: false });
    const first = await list('?limit=2');
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    const second = await list(`?limit=2&cursor=${first.nextCursor}`);
    expect(second).toMatchObject({ total: 3, hasMore: false, nextCursor: null });
    expect(second.messages.map((m: { kind: string }) => m.kind)).toEqual(['sign_up_code']);
  });

  it('refuses a bad filter naming it, answers 404 for an unknown message, 403 without messages:read', async () => {
    const bad = await call('GET', `${base}/messages?status=lost`);
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().details)).toContain('querystring.status');
    const missing = await call('GET', `${base}/messages/00000000-0000-4000-8000-000000000000`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('message.not_found');
    expect((await call('GET', `${base}/messages`, undefined, await t.token('email-providers:read'))).statusCode).toBe(403);
    expect((await call('GET', `${base}/messages`, undefined, await t.token('messages:read'))).statusCode).toBe(200);
  });

  it('records each queued message with its audit entry and event (no content)', async () => {
    const [message] = (await list('?kind=password_reset')).messages;
    const events = await tenantEvents(t, tenantId, { environmentId, type: 'message.queued' });
    expect(events.map((e) => (e.data.message as { id: string }).id)).toContain(message.id);
    const [entry] = await auditEntries(t, { tenantId }, { action: 'message.queue', resourceId: message.id });
    expect(entry).toMatchObject({
      actor: { type: 'system', id: 'message-sender' },
      environmentId,
      resource: { type: 'message', id: message.id },
      changes: { after: { channel: 'email', kind: 'password_reset', recipient: 'bob@example.com', providers: ['postmark'] } },
    });
    expect(JSON.stringify(events)).not.toContain('secret-link');
  });

  it('without an active provider of the channel, the log sender keeps the rendered message and no record is made', async () => {
    await t.app.messages.sender.send({
      template: 'magic_link',
      params: { code: '333333', link: 'https://id.example.com/l' },
      to: 'eve@example.com',
      environmentId: quiet,
      locale: 'de',
    });
    const kept = await waitForMessage(t.app, 'eve@example.com', 'sign_in_code');
    expect(kept).toMatchObject({ channel: 'email', subject: 'Ihr Anmeldecode', environmentId: quiet, text: expect.stringContaining('333333') });
    expect(kept.html).toContain('<html lang="de">');
    const res = await call('GET', `/v1/tenants/${tenantId}/environments/${quiet}/messages`);
    expect(res.json().total).toBe(0);
    expect(messagesTo(t.app, 'Ada@Example.com')).toEqual([]);
  });
});
