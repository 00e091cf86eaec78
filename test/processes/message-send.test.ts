// The message-send process on both engines: a message goes through the environment's providers, a provider that is
// down fails over to the next one (message.failed_over, then sent by the second, read at the local SMTP server), every
// provider refusing gives it up (failed), a restart while it waits between attempts loses nothing, and SMS messages
// go through the active SMS providers by rank.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRequest } from '../../lib/messages/sender.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ENGINES, startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startVendorFake, type VendorFake } from '../helpers/vendor-fakes/email-http.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/vendor-fakes/email-smtp.ts';
import { startTwilioFake } from '../helpers/vendor-fakes/sms-twilio.ts';

const KEY = 'key_live_0123456789abcdefWXYZ';
const SMTP = { username: 'mailer', password: 'smtp-password-0123456789' };
const TWILIO = { accountSid: `AC${'1'.repeat(32)}`, authToken: 'twilio-auth-token-0123456789' };
const FROM = 'noreply@example.com';
/** A port nothing listens on: the provider is down. */
const DOWN = 'http://127.0.0.1:9';
const POLL = { timeout: 20_000, interval: 100 };

let t: TestAppWithProcesses;
let token: string;
let tenantId: string;
let postmark: VendorFake;
let smtp: SmtpFake;
let twilio: Awaited<ReturnType<typeof startTwilioFake>>;

interface Message {
  id: string;
  status: string;
  provider: string | null;
  providerMessageId: string | null;
  attempts: number;
  lastError: string | null;
  providers: string[];
}

const base = (environmentId: string) => `/v1/tenants/${tenantId}/environments/${environmentId}`;
const call = (method: 'GET' | 'PUT', url: string, payload?: object) => t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const save = async (environmentId: string, path: string, body: object) => {
  const res = await call('PUT', `${base(environmentId)}/${path}`, body);
  expect(res.statusCode, res.body).toBeLessThan(300);
};
/** Postmark active (at `url`), SMTP saved but inactive: the failover. */
const emailProviders = async (environmentId: string, postmarkUrl: string) => {
  await save(environmentId, 'email-providers/postmark', {
    provider: 'postmark',
    active: true,
    config: { from: FROM, baseUrl: postmarkUrl },
    secrets: { serverToken: KEY },
  });
  await save(environmentId, 'email-providers/smtp', {
    provider: 'smtp',
    config: { host: smtp.host, port: smtp.port, requireTls: false, from: FROM },
    secrets: SMTP,
  });
};
const messagesOf = async (environmentId: string, query = '') => {
  const res = await call('GET', `${base(environmentId)}/messages${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messages as Message[];
};
const onlyMessage = async (environmentId: string) => {
  const [message, ...more] = await messagesOf(environmentId);
  expect(more).toEqual([]);
  return message!;
};
const settled = (environmentId: string) =>
  expect.poll(async () => (await messagesOf(environmentId)).map((m) => m.status), POLL).toEqual([expect.not.stringMatching(/^queued$/)]);
const send = (environmentId: string, to: string, extra: Partial<MessageRequest> = {}) =>
  t.app.messages.sender.send({ template: 'verification', params: { code: '424242' }, to, environmentId, locale: 'de', ...extra } as MessageRequest);
const eventsOf = async (environmentId: string, type: string) => (await tenantEvents(t, tenantId, { environmentId, type })).map((e) => e.data);
const mailsTo = (to: string) => smtp.received.filter((r) => r.envelope.to.includes(to));

describe.each(ENGINES)('message-send process (%s)', (engine) => {
  beforeAll(async () => {
    smtp = await startSmtpFake(SMTP);
    postmark = await startVendorFake('postmark', { key: KEY });
    twilio = await startTwilioFake(TWILIO);
    t = await startTestAppWithProcesses({ engine, env: { MESSAGE_RETRY_SCHEDULE: '0,300ms' } });
    token = await t.token();
    tenantId = t.credentials.tenantId;
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([smtp.close(), postmark.close(), twilio.close()]);
  });

  it('sends through the active provider; the page does not wait: the message is queued, then sent', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    await emailProviders(environmentId!, postmark.url);
    await send(environmentId!, `ok-${engine}@example.org`);
    await settled(environmentId!);
    const message = await onlyMessage(environmentId!);
    expect(message).toMatchObject({ status: 'sent', provider: 'postmark', attempts: 1, lastError: null, providers: ['postmark', 'smtp'] });
    const request = postmark.requests.find((r) => r.json.To === `ok-${engine}@example.org`)!;
    expect(message.providerMessageId).toMatch(/^postmark-msg-\d+$/);
    expect(request.json).toMatchObject({ From: FROM, Subject: 'Ihr Bestätigungscode', TextBody: expect.stringContaining('424242') });
    expect(await eventsOf(environmentId!, 'message.sent')).toEqual([{ message: expect.objectContaining({ id: message.id, status: 'sent' }) }]);
    expect(await eventsOf(environmentId!, 'message.queued')).toEqual([{ message: expect.objectContaining({ id: message.id, status: 'queued' }) }]);
    expect(JSON.stringify(await tenantEvents(t, tenantId, { environmentId: environmentId! }))).not.toContain('424242');
  });

  it('a provider that is down is retried, then fails over to the next: message.failed_over, sent by SMTP', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    await emailProviders(environmentId!, DOWN);
    const to = `failover-${engine}@example.org`;
    await send(environmentId!, to);
    await settled(environmentId!);
    const message = await onlyMessage(environmentId!);
    expect(message).toMatchObject({ status: 'sent', provider: 'smtp', attempts: 3 });
    const [mail, ...more] = mailsTo(to);
    expect(more).toEqual([]);
    expect(mail!.mail.subject).toBe('Ihr Bestätigungscode');
    expect(mail!.mail.text).toContain('Ihr Bestätigungscode lautet 424242.');
    expect(mail!.mail.html).toContain('<strong style="font-size:20px;letter-spacing:2px">424242</strong>');
    expect(message.providerMessageId).toBe(mail!.mail.messageId);
    expect(await eventsOf(environmentId!, 'message.failed_over')).toEqual([
      {
        message: expect.objectContaining({ id: message.id, attempts: 2 }),
        from: 'postmark',
        to: 'smtp',
        error: expect.stringMatching(/could not reach 127\.0\.0\.1:9/),
      },
    ]);
    expect(await eventsOf(environmentId!, 'message.sent')).toEqual([
      { message: expect.objectContaining({ provider: 'smtp', providerMessageId: mail!.mail.messageId }) },
    ]);
  });

  it('every provider refusing gives the message up: failed, with the last refusal', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    postmark.refuse = true;
    try {
      await emailProviders(environmentId!, postmark.url);
      await send(environmentId!, `nobody-${engine}@refused.example`);
      await settled(environmentId!);
    } finally {
      postmark.refuse = false;
    }
    const message = await onlyMessage(environmentId!);
    // Refusals fail over at once (no retry): one attempt each.
    expect(message).toMatchObject({ status: 'failed', provider: 'smtp', attempts: 2, providerMessageId: null });
    expect(message.lastError).toMatch(/Mailbox does not exist/);
    expect(await eventsOf(environmentId!, 'message.failed_over')).toEqual([
      expect.objectContaining({ from: 'postmark', to: 'smtp', error: expect.stringContaining('is not a Sender Signature') }),
    ]);
    expect(await eventsOf(environmentId!, 'message.failed')).toEqual([{ message: expect.objectContaining({ id: message.id, status: 'failed' }) }]);
    expect((await messagesOf(environmentId!, '?status=failed')).map((m) => m.id)).toEqual([message.id]);
    expect(await messagesOf(environmentId!, '?status=sent')).toEqual([]);
  });

  it('a restart while the message waits for its next attempt loses nothing: it is sent once', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    await emailProviders(environmentId!, DOWN);
    const to = `restart-${engine}@example.org`;
    await send(environmentId!, to);
    await expect.poll(async () => (await onlyMessage(environmentId!)).attempts, POLL).toBeGreaterThanOrEqual(1);
    await t.restartProcesses();
    await settled(environmentId!);
    expect(await onlyMessage(environmentId!)).toMatchObject({ status: 'sent', provider: 'smtp' });
    expect(mailsTo(to)).toHaveLength(1);
  });

  it('the sweeper starts the process of a queued message whose start was lost, which then sends it', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    await emailProviders(environmentId!, postmark.url);
    await t.processes.stop();
    await send(environmentId!, `swept-${engine}@example.org`);
    const { id } = await onlyMessage(environmentId!);
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id = ${`message-send:${id}`}`);
    await t.restartProcesses();
    expect(await t.processStatus(`message-send:${id}`)).toBe('unknown');
    const { logged } = await sweepOnce(t);
    expect(logged.join('\n')).toContain(`message-send:${id}`);
    await settled(environmentId!);
    expect(await onlyMessage(environmentId!)).toMatchObject({ id, status: 'sent', provider: 'postmark' });
  });

  it('an SMS code goes through the active SMS providers by rank: a down one fails over to the next', async () => {
    const [environmentId] = (await newEnvironments(t, token)).environmentIds;
    const twilioConfig = (baseUrl: string) => ({ accountSid: TWILIO.accountSid, from: '+14155552671', baseUrl });
    // Two Twilio accounts cannot be saved (one per kind): the down one is Vonage at rank 0.
    await save(environmentId!, 'sms-providers/vonage', {
      rank: 0,
      config: { from: '+14155552671', baseUrl: DOWN },
      secrets: { apiKey: 'vonage-key', apiSecret: 'vonage-secret-0123' },
    });
    await save(environmentId!, 'sms-providers/twilio', { rank: 1, config: twilioConfig(twilio.url), secrets: { authToken: TWILIO.authToken } });
    await t.app.messages.sender.send({ template: 'sms_code', params: { code: '909090' }, to: '+12025550123', environmentId: environmentId!, locale: 'fr' });
    await settled(environmentId!);
    expect(await onlyMessage(environmentId!)).toMatchObject({ status: 'sent', provider: 'twilio', providers: ['vonage', 'twilio'] });
    const body = new URLSearchParams(twilio.received.at(-1)!.body);
    expect(body.get('To')).toBe('+12025550123');
    expect(body.get('Body')).toBe('909090 est votre code de vérification. Il est valable une fois, pendant 10 minutes. Ne le communiquez jamais.');
    expect(await eventsOf(environmentId!, 'message.failed_over')).toEqual([expect.objectContaining({ from: 'vonage', to: 'twilio' })]);
  });
});
