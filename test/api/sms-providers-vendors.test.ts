// Each SMS vendor's exact request, as a local fake of the vendor checks it, through the test send of the API: path,
// authentication, encoding and fields; the vendor's id on success and its error text (never a secret) on refusal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EnvironmentCaller } from '../../api/access/caller.ts';
import { createSmsProviderService } from '../../api/sms-providers/service.ts';
import { vonageSender } from '../../lib/sms/vendors/vonage.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { form, type VendorFake } from '../helpers/vendor-fakes/sms-server.ts';
import { startMessagebirdFake } from '../helpers/vendor-fakes/sms-messagebird.ts';
import { SIGV4, startSnsFake } from '../helpers/vendor-fakes/sms-sns.ts';
import { startTwilioFake, TWILIO_INVALID_TO } from '../helpers/vendor-fakes/sms-twilio.ts';
import { startVonageFake } from '../helpers/vendor-fakes/sms-vonage.ts';

const TEXT = 'Test message: this SMS provider works.';
const TO = '+12025550123';
const twilioAccount = { accountSid: `AC${'0f'.repeat(16)}`, authToken: 'twilio-token-secret-1111' };
const MESSAGEBIRD_KEY = 'live_messagebird-key-secret-2222';
const snsCredentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY-3333' };
const vonageAccount = { apiKey: 'a1b2c3d4', apiSecret: 'vonage-secret-4444' };
const SECRETS = [twilioAccount.authToken, MESSAGEBIRD_KEY, snsCredentials.secretAccessKey, vonageAccount.apiSecret];

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let fakes: { twilio: VendorFake; messagebird: VendorFake; sns: VendorFake; vonage: VendorFake };
beforeAll(async () => {
  const [app, twilio, messagebird, sns, vonage] = await Promise.all([
    startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }),
    startTwilioFake(twilioAccount),
    startMessagebirdFake(MESSAGEBIRD_KEY),
    startSnsFake('eu-west-1', snsCredentials),
    startVonageFake(vonageAccount),
  ]);
  t = app;
  fakes = { twilio, messagebird, sns, vonage };
  token = await t.token();
});
beforeEach(async () => {
  const created = await newEnvironments(t, token);
  tenantId = created.tenantId;
  environmentId = created.environmentIds[0]!;
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/sms-providers`;
});
afterAll(() => Promise.all([t.close(), ...Object.values(fakes).map((f) => f.close())]));

const save = async (kind: string, config: object, secrets: object) => {
  const res = await t.app.inject({ method: 'PUT', url: `${base}/${kind}`, headers: bearer(token), payload: { config, secrets } });
  expect(res.statusCode, res.body).toBe(201);
};
const test = (kind: string, recipient = TO) => t.app.inject({ method: 'POST', url: `${base}/${kind}/test`, headers: bearer(token), payload: { recipient } });
const last = (fake: VendorFake) => fake.received.at(-1)!;
const refused = async (kind: string, recipient: string, error: string) => {
  const res = await test(kind, recipient);
  expect(res.statusCode).toBe(502);
  expect(res.json()).toMatchObject({ code: 'sms_provider.refused', error });
  for (const secret of SECRETS) expect(res.body).not.toContain(secret);
};

describe('SMS vendors', () => {
  it('Twilio: form-encoded To, From, Body to the account Messages.json with HTTP Basic; the id is the sid', async () => {
    await save('twilio', { accountSid: twilioAccount.accountSid, from: '+14155552671', baseUrl: fakes.twilio.url }, { authToken: twilioAccount.authToken });
    const res = await test('twilio');
    expect(res.json()).toEqual({ success: true, messageId: expect.stringMatching(/^SM[0-9a-f]{32}$/) });
    const req = last(fakes.twilio);
    expect(req.path).toBe(`/2010-04-01/Accounts/${twilioAccount.accountSid}/Messages.json`);
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${twilioAccount.accountSid}:${twilioAccount.authToken}`).toString('base64')}`);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form(req)).toEqual({ To: TO, From: '+14155552671', Body: TEXT });

    // A Messaging Service instead of a From number.
    const messagingServiceSid = `MG${'ab'.repeat(16)}`;
    await t.app.inject({
      method: 'PUT',
      url: `${base}/twilio`,
      headers: bearer(token),
      payload: { config: { accountSid: twilioAccount.accountSid, messagingServiceSid, baseUrl: fakes.twilio.url } },
    });
    expect((await test('twilio')).statusCode).toBe(200);
    expect(form(last(fakes.twilio))).toEqual({ To: TO, MessagingServiceSid: messagingServiceSid, Body: TEXT });

    await refused('twilio', TWILIO_INVALID_TO, `Twilio answered 400: The 'To' number ${TWILIO_INVALID_TO} is not a valid phone number. (code 21211)`);
    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'sms_provider.tested');
    expect(events.map((e) => e.data.success)).toEqual([true, true, false]);
    expect(events[2]!.data).toMatchObject({ messageId: null, error: expect.stringContaining('21211') });
  });

  it('MessageBird: JSON originator, recipients, body to /messages with an AccessKey header; the id is id', async () => {
    await save('messagebird', { originator: 'Acme', baseUrl: fakes.messagebird.url }, { accessKey: MESSAGEBIRD_KEY });
    const res = await test('messagebird');
    expect(res.json()).toEqual({ success: true, messageId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const req = last(fakes.messagebird);
    expect([req.method, req.path, req.headers.authorization, req.headers['content-type']]).toEqual([
      'POST',
      '/messages',
      `AccessKey ${MESSAGEBIRD_KEY}`,
      'application/json',
    ]);
    expect(JSON.parse(req.body)).toEqual({ originator: 'Acme', recipients: ['12025550123'], body: TEXT });

    await t.app.inject({ method: 'PUT', url: `${base}/messagebird`, headers: bearer(token), payload: { secrets: { accessKey: 'test_wrong-key' } } });
    await refused('messagebird', TO, 'MessageBird answered 401: Request not allowed (incorrect access_key) (code 2)');
  });

  it('Amazon SNS: a SigV4-signed (region, service sns) form POST of Action=Publish; the id is the XML MessageId', async () => {
    await save('sns', { region: 'eu-west-1', senderId: 'Acme', baseUrl: fakes.sns.url }, snsCredentials);
    const res = await test('sns');
    expect(res.json()).toEqual({ success: true, messageId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const req = last(fakes.sns);
    expect([req.method, req.path, req.headers['content-type']]).toEqual(['POST', '/', 'application/x-www-form-urlencoded; charset=utf-8']);
    const auth = SIGV4.exec(req.headers.authorization ?? '');
    expect(auth?.slice(1, 4)).toEqual([snsCredentials.accessKeyId, expect.stringMatching(/^\d{8}$/), 'eu-west-1']);
    expect(auth?.[4]).toContain('host');
    expect(req.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(form(req)).toEqual({
      Action: 'Publish',
      PhoneNumber: TO,
      Message: TEXT,
      Version: '2010-03-31',
      'MessageAttributes.entry.1.Name': 'AWS.SNS.SMS.SenderID',
      'MessageAttributes.entry.1.Value.DataType': 'String',
      'MessageAttributes.entry.1.Value.StringValue': 'Acme',
    });

    await refused('sns', '+15005550006', 'Amazon SNS answered 400: InvalidParameter: Invalid parameter: PhoneNumber Reason: +1500 is not valid to publish to');
    // The fake recomputes the signature: a wrong secret key is a signature mismatch.
    await t.app.inject({ method: 'PUT', url: `${base}/sns`, headers: bearer(token), payload: { secrets: { secretAccessKey: 'not-the-key' } } });
    await refused('sns', TO, 'Amazon SNS answered 403: SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided.');
  });

  it('Vonage: form-encoded api_key, api_secret, from, to and text to /sms/json; status "0" carries the message-id', async () => {
    await save('vonage', { from: '+4915123456789', baseUrl: fakes.vonage.url }, vonageAccount);
    const res = await test('vonage');
    expect(res.json()).toEqual({ success: true, messageId: expect.stringMatching(/^[0-9A-F]{16}$/) });
    const req = last(fakes.vonage);
    expect([req.method, req.path, req.headers['content-type']]).toEqual(['POST', '/sms/json', 'application/x-www-form-urlencoded']);
    expect(form(req)).toEqual({ api_key: vonageAccount.apiKey, api_secret: vonageAccount.apiSecret, from: '4915123456789', to: '12025550123', text: TEXT });

    await t.app.inject({ method: 'PUT', url: `${base}/vonage`, headers: bearer(token), payload: { secrets: { apiSecret: 'wrong' } } });
    await refused('vonage', TO, 'Vonage answered 200: Bad Credentials (status 4)');
  });

  it('answers 502 when the vendor cannot be reached', async () => {
    await save('vonage', { from: '+4915123456789', baseUrl: 'http://127.0.0.1:1' }, vonageAccount);
    await refused('vonage', TO, 'vonage could not be reached: connection refused');
  });

  it('keeps credentials off plain http and private addresses unless the deployment allows private targets', async () => {
    // The service as a deployment without ALLOW_PRIVATE_NETWORK_TARGETS builds it.
    const service = createSmsProviderService({ pool: t.pool, masterKey: t.masterKey, transport: { allowPrivate: false, timeoutMs: 2000 } });
    const caller = { scope: { environmentId, tenant: { id: tenantId } } } as EnvironmentCaller;
    const saveAt = (baseUrl: string) => service.save(caller, 'vonage', { config: { from: '+4915123456789', baseUrl }, secrets: vonageAccount });
    await expect(saveAt('http://rest.nexmo.example')).rejects.toMatchObject({
      statusCode: 400,
      code: 'sms_provider.url_refused',
      details: [{ path: 'body.config.baseUrl', message: 'must be an https URL' }],
    });
    await expect(saveAt('https://127.0.0.1:1')).rejects.toMatchObject({
      statusCode: 400,
      code: 'sms_provider.url_refused',
      details: [{ path: 'body.config.baseUrl' }],
    });
    // And at send time, whatever was stored: the adapter goes through the SSRF-guarded client.
    const sender = vonageSender({ from: '+4915123456789', baseUrl: fakes.vonage.url }, vonageAccount, { allowPrivate: false, timeoutMs: 2000 });
    const before = fakes.vonage.received.length;
    await expect(sender.send({ to: TO, text: TEXT })).rejects.toMatchObject({
      vendor: 'vonage',
      message: expect.stringMatching(/^vonage could not be reached: /),
    });
    expect(fakes.vonage.received).toHaveLength(before);
  });

  it('answers 404 naming the kind when the environment has no provider of it', async () => {
    const res = await test('sns');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'sms_provider.not_found', error: 'This environment has no sns SMS provider.' });
  });
});
