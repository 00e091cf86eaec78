// Test sends through each email provider kind against real local servers: an SMTP server (smtp-server, parsed with
// mailparser) and an HTTP fake per vendor that checks the request the vendor documents and answers as it does.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { startVendorFake, type EmailVendor, type VendorFake } from '../helpers/vendor-fakes/email-http.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/vendor-fakes/email-smtp.ts';

const KEY = 'key_live_0123456789abcdefWXYZ';
const AWS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const SMTP = { username: 'mailer', password: 'smtp-password-0123456789' };
const FROM = 'noreply@example.com';
const SUBJECT = 'Test message from your';

let t: TestApp;
let token: string;
let base: string;
let tenantId: string;
let environmentId: string;
const fakes = {} as Record<EmailVendor, VendorFake>;
let smtp: SmtpFake;

beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  const created = await newEnvironments(t, token);
  [tenantId, environmentId] = [created.tenantId, created.environmentIds[0]!];
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/email-providers`;
  fakes.resend = await startVendorFake('resend', { key: KEY });
  fakes.sendgrid = await startVendorFake('sendgrid', { key: KEY });
  fakes.postmark = await startVendorFake('postmark', { key: KEY });
  fakes.ses = await startVendorFake('ses', { key: AWS.accessKeyId, secretAccessKey: AWS.secretAccessKey, region: 'eu-west-1' });
  smtp = await startSmtpFake(SMTP);
});
afterAll(async () => {
  await Promise.all([...Object.values(fakes).map((f) => f.close()), smtp.close()]);
  await t.close();
});

const call = (method: 'PUT' | 'POST', url: string, payload: object) => t.app.inject({ method, url, headers: bearer(token), payload });
const save = async (provider: string, config: object, secrets: object) => {
  const res = await call('PUT', `${base}/${provider}`, { provider, config, secrets });
  expect(res.statusCode, res.body).toBe(200);
};
const CONFIGS = {
  resend: () => save('resend', { from: FROM, replyTo: 'help@example.com', baseUrl: fakes.resend.url }, { apiKey: KEY }),
  sendgrid: () => save('sendgrid', { from: FROM, baseUrl: fakes.sendgrid.url }, { apiKey: KEY }),
  postmark: () => save('postmark', { from: FROM, baseUrl: fakes.postmark.url }, { serverToken: KEY }),
  ses: () => save('ses', { from: FROM, region: 'eu-west-1', baseUrl: fakes.ses.url }, AWS),
};
/** Saves the vendor's provider as it works (tests run in random order) and has its fake accept messages. */
const ready = async (vendor: EmailVendor) => {
  fakes[vendor].refuse = false;
  await CONFIGS[vendor]();
};
const readySmtp = () => save('smtp', { host: smtp.host, port: smtp.port, requireTls: false, from: FROM }, SMTP);
const testSend = (provider: string, recipient = 'ada@example.org') => call('POST', `${base}/test`, { provider, recipient });

describe('test sends through each vendor’s API', () => {
  it('Resend: POST /emails with the Bearer key and its JSON body; answers the email id', async () => {
    await ready('resend');
    const res = await testSend('resend');
    expect(res.json()).toEqual({ success: true, messageId: fakes.resend.lastId });
    const request = fakes.resend.requests.at(-1);
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.json).toEqual({
      from: FROM,
      to: ['ada@example.org'],
      subject: expect.stringContaining(`${SUBJECT} Resend`),
      text: expect.stringContaining('test message'),
      html: expect.stringContaining('<p>'),
      reply_to: 'help@example.com',
    });
  });

  it('SendGrid: POST /v3/mail/send with personalizations and both content parts; the id from X-Message-Id', async () => {
    await ready('sendgrid');
    expect((await testSend('sendgrid')).json()).toEqual({ success: true, messageId: fakes.sendgrid.lastId });
    const request = fakes.sendgrid.requests.at(-1);
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.json).toEqual({
      personalizations: [{ to: [{ email: 'ada@example.org' }] }],
      from: { email: FROM },
      subject: expect.stringContaining(`${SUBJECT} SendGrid`),
      content: [
        { type: 'text/plain', value: expect.stringContaining('test message') },
        { type: 'text/html', value: expect.stringContaining('<p>') },
      ],
    });
  });

  it('Postmark: POST /email with X-Postmark-Server-Token and its PascalCase body; answers the MessageID', async () => {
    await ready('postmark');
    expect((await testSend('postmark')).json()).toEqual({ success: true, messageId: fakes.postmark.lastId });
    const request = fakes.postmark.requests.at(-1);
    expect(request!.headers['x-postmark-server-token']).toBe(KEY);
    expect(request!.headers.accept).toBe('application/json');
    expect(request!.json).toEqual({
      From: FROM,
      To: 'ada@example.org',
      Subject: expect.stringContaining(`${SUBJECT} Postmark`),
      TextBody: expect.stringContaining('test message'),
      HtmlBody: expect.stringContaining('<p>'),
      MessageStream: 'outbound',
    });
  });

  it('SES v2: POST /v2/email/outbound-emails signed with SigV4 for the region and service ses; answers the MessageId', async () => {
    await ready('ses');
    expect((await testSend('ses')).json()).toEqual({ success: true, messageId: fakes.ses.lastId });
    expect(fakes.ses.lastId).toMatch(/^ses-msg-\d+$/);
    const request = fakes.ses.requests.at(-1);
    // The fake signed the same request again with the secret key and found the same signature.
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    expect(request!.json).toEqual({
      FromEmailAddress: FROM,
      Destination: { ToAddresses: ['ada@example.org'] },
      Content: {
        Simple: {
          Subject: { Data: expect.stringContaining(`${SUBJECT} Amazon SES`), Charset: 'UTF-8' },
          Body: { Text: { Data: expect.stringContaining('test message'), Charset: 'UTF-8' }, Html: { Data: expect.stringContaining('<p>'), Charset: 'UTF-8' } },
        },
      },
    });
  });

  it('SMTP: delivers through nodemailer with AUTH; the server parses From, To, Subject, the text and the HTML part', async () => {
    await readySmtp();
    const res = await testSend('smtp', 'grace@example.org');
    expect(res.statusCode, res.body).toBe(200);
    const received = smtp.received.at(-1);
    expect(res.json()).toEqual({ success: true, messageId: received!.mail.messageId });
    expect(received!.auth).toEqual({ method: 'PLAIN', username: SMTP.username });
    expect(received!.envelope).toEqual({ from: FROM, to: ['grace@example.org'] });
    expect(received!.mail.from?.text).toBe(FROM);
    expect(received!.mail.to).toMatchObject({ text: 'grace@example.org' });
    expect(received!.mail.subject).toBe('Test message from your SMTP email provider');
    expect(received!.mail.text).toContain('This is a test message sent through your SMTP email provider.');
    expect(received!.mail.html).toContain('<p>This is a test message sent through your SMTP email provider. It works.</p>');
  });
});

describe('DKIM', () => {
  it('signs SMTP messages with the configured DKIM domain, selector and key', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const config = { host: smtp.host, port: smtp.port, requireTls: false, from: FROM, dkim: { domainName: 'example.com', keySelector: 'mail' } };
    const saved = await call('PUT', `${base}/smtp`, { provider: 'smtp', config, secrets: { ...SMTP, dkimPrivateKey: pem } });
    expect(saved.json().provider.secretHints).toEqual({ username: '…', password: '…6789', dkimPrivateKey: 'PEM private key' });
    expect((await testSend('smtp', 'dkim@example.org')).statusCode).toBe(200);
    const signature = smtp.received.at(-1)!.mail.headerLines.find((h) => h.key === 'dkim-signature')?.line ?? '';
    const tags = Object.fromEntries(
      signature
        .replace(/^DKIM-Signature:/i, '')
        .replace(/\s+/g, '')
        .split(';')
        .filter(Boolean)
        .map((tag) => [tag.slice(0, tag.indexOf('=')), tag.slice(tag.indexOf('=') + 1)]),
    );
    expect(tags).toMatchObject({
      v: '1',
      a: 'rsa-sha256',
      d: 'example.com',
      s: 'mail',
      bh: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      b: expect.stringMatching(/^[A-Za-z0-9+/]{300,}=*$/),
    });
    expect(tags.h!.toLowerCase().split(':')).toEqual(expect.arrayContaining(['from', 'to', 'subject']));
    // null removes the key; the message goes out unsigned.
    const unsigned = await call('PUT', `${base}/smtp`, { provider: 'smtp', config: { ...config, dkim: undefined }, secrets: { dkimPrivateKey: null } });
    expect(unsigned.json().provider.secretHints).toEqual({ username: '…', password: '…6789' });
    expect((await testSend('smtp', 'unsigned@example.org')).statusCode).toBe(200);
    expect(smtp.received.at(-1)!.mail.headerLines.map((h) => h.key)).not.toContain('dkim-signature');
  });

  it('answers 400 naming the key when DKIM is configured without one, or with one that is not a PEM private key', async () => {
    await t.app.inject({ method: 'DELETE', url: `${base}/smtp`, headers: bearer(token) });
    const config = { host: smtp.host, port: smtp.port, from: FROM, dkim: { domainName: 'example.com', keySelector: 'mail' } };
    const missing = await call('PUT', `${base}/smtp`, { provider: 'smtp', config, secrets: SMTP });
    expect(missing.json().details).toEqual([{ path: 'body.secrets.dkimPrivateKey', message: 'is required with config.dkim' }]);
    const bad = await call('PUT', `${base}/smtp`, { provider: 'smtp', config, secrets: { ...SMTP, dkimPrivateKey: 'not a key' } });
    expect(bad.json().details).toEqual([{ path: 'body.secrets.dkimPrivateKey', message: 'must be a PEM private key (RSA or Ed25519)' }]);
  });
});

describe('email_provider.tested', () => {
  it('records each test send with its outcome: the message id, or the vendor’s error', async () => {
    await ready('postmark');
    const ok = await testSend('postmark', 'first@example.org');
    fakes.postmark.refuse = true;
    await testSend('postmark', 'second@example.org');
    const events = (await tenantEvents(t, tenantId, { type: 'email_provider.tested' })).filter((e) =>
      ['first@example.org', 'second@example.org'].includes(e.data.recipient as string),
    );
    expect(
      events.map(({ environmentId, subject, data: { success, messageId, error, recipient } }) => ({
        environmentId,
        subject,
        success,
        messageId,
        error,
        recipient,
      })),
    ).toEqual([
      {
        environmentId,
        subject: { type: 'email_provider', id: expect.any(String) },
        success: true,
        messageId: ok.json().messageId,
        error: null,
        recipient: 'first@example.org',
      },
      {
        environmentId,
        subject: { type: 'email_provider', id: expect.any(String) },
        success: false,
        messageId: null,
        error: "422: The 'From' address you supplied (noreply@example.com) is not a Sender Signature on your account. (ErrorCode 400)",
        recipient: 'second@example.org',
      },
    ]);
  });
});

describe('refusals', () => {
  const failed = (message: string) => ({ error: message, code: 'email_provider.send_failed', requestId: expect.any(String) });

  it('answers 502 with each HTTP vendor’s own error text when it refuses the message', async () => {
    const expected: Record<Exclude<EmailVendor, 'resend'>, string> = {
      sendgrid: '403: from: The from address does not match a verified Sender Identity.',
      postmark: "422: The 'From' address you supplied (noreply@example.com) is not a Sender Signature on your account. (ErrorCode 400)",
      ses: '400: Email address is not verified. The following identities failed the check in region EU-WEST-1: noreply@example.com',
    };
    for (const vendor of ['resend', ...Object.keys(expected)] as EmailVendor[]) await ready(vendor);
    fakes.resend.refuse = true;
    const resend = await testSend('resend');
    expect(resend.statusCode).toBe(502);
    expect(resend.json()).toEqual(
      failed(
        'The resend provider refused the test message: 403: The example.com domain is not verified. Please, add and verify your domain on https://resend.com/domains',
      ),
    );
    for (const [vendor, text] of Object.entries(expected)) {
      fakes[vendor as EmailVendor].refuse = true;
      const res = await testSend(vendor);
      expect(res.statusCode, vendor).toBe(502);
      expect(res.json()).toEqual(failed(`The ${vendor} provider refused the test message: ${text}`));
    }
  });

  it('answers 502 for a wrong key, without the key, and for an SMTP mailbox the server refuses', async () => {
    const wrong = 'wrong_key_0123456789abcdef';
    await ready('sendgrid');
    await readySmtp();
    await call('PUT', `${base}/sendgrid`, { provider: 'sendgrid', secrets: { apiKey: wrong } });
    const res = await testSend('sendgrid');
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe('The sendgrid provider refused the test message: 401: The provided authorization grant is invalid, expired, or revoked');
    expect(res.body).not.toContain(wrong);

    // The SES fake signs the request again with the real secret: a signature made with another one does not match.
    await ready('ses');
    await call('PUT', `${base}/ses`, { provider: 'ses', secrets: { secretAccessKey: 'another-secret-access-key-0000' } });
    const unsigned = await testSend('ses');
    expect(unsigned.statusCode).toBe(502);
    expect(unsigned.json().error).toBe(
      'The ses provider refused the test message: 403: The request signature we calculated does not match the signature you provided.',
    );
    await ready('ses');

    const bounced = await testSend('smtp', 'nobody@refused.example');
    expect(bounced.statusCode).toBe(502);
    expect(bounced.json().error).toMatch(/^The smtp provider refused the test message: .*550 5\.1\.1 Mailbox does not exist/);
    expect(bounced.body).not.toContain(SMTP.password);
  });

  it('answers 502 when SMTP requires STARTTLS (the default) and the server does not offer it', async () => {
    await readySmtp();
    await call('PUT', `${base}/smtp`, { provider: 'smtp', config: { host: smtp.host, port: smtp.port, from: FROM } });
    const res = await testSend('smtp');
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/^The smtp provider refused the test message: .*STARTTLS/i);
  });

  it('answers 400 naming body.recipient for a recipient that is not an email address', async () => {
    await readySmtp();
    const res = await testSend('smtp', 'not-an-address');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'request.invalid', details: [{ path: 'body.recipient', message: 'must be an email address' }] });
  });
});
