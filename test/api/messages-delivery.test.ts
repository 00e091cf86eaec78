// Messages into sign-in and back: with SMTP the environment's active email provider, the email code of the sign-in
// pages arrives at the local SMTP server (branded, localised), not in the log sender's inbox, and signs the user in;
// a Postmark bounce webhook marks a sent message bounced. The embedded engine runs the message-send processes.
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedProcesses } from '../../worker/embedded.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, postForm } from '../helpers/sign-in.ts';
import { startVendorFake, type VendorFake } from '../helpers/vendor-fakes/email-http.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/vendor-fakes/email-smtp.ts';

const SMTP = { username: 'mailer', password: 'smtp-password-0123456789' };
const TOKEN = 'postmark-server-token-0123456789';
const POLL = { timeout: 15_000, interval: 100 };

let t: OidcTestApp;
let stopProcesses: () => Promise<void>;
let token: string;
let smtp: SmtpFake;
let postmark: VendorFake;

beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error', ALLOW_PRIVATE_NETWORK_TARGETS: 'true', DISPATCH_POLL_MS: '200', MESSAGE_RETRY_SCHEDULE: '0,300ms' });
  const processes = await startEmbeddedProcesses({
    config: t.config,
    pool: t.pool,
    databaseUrl: t.databaseUrl,
    masterKey: t.masterKey,
    onError: console.error,
  });
  stopProcesses = processes.stop;
  token = await t.token();
  smtp = await startSmtpFake(SMTP);
  postmark = await startVendorFake('postmark', { key: TOKEN });
});
afterAll(async () => {
  await stopProcesses();
  await t.close();
  await Promise.all([smtp.close(), postmark.close()]);
});

const put = async (url: string, payload: object) => {
  const res = await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload });
  expect(res.statusCode, res.body).toBeLessThan(300);
};
const messagesOf = async (tenantId: string, environmentId: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}/environments/${environmentId}/messages`, headers: bearer(token) })).json().messages as {
    id: string;
    status: string;
    kind: string;
    template: string;
    provider: string;
    providerMessageId: string;
    lastError: string | null;
  }[];

describe('messages through the providers', () => {
  it('sends the sign-in email code through the active SMTP provider, branded and in the page’s locale; the code signs in', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
    const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
    await put(`${base}/settings/sign-in`, { emailCodeEnabled: true, displayName: 'Acme <ID>', primaryColor: '#aa3300' });
    await put(`${base}/email-providers/smtp`, {
      provider: 'smtp',
      active: true,
      config: { host: smtp.host, port: smtp.port, requireTls: false, from: 'id@acme.example' },
      secrets: SMTP,
    });
    const user = await directoryUser(t, env.environmentId);
    const rp = await relyingParty(env.issuer, env.clientId, null);

    const jar = new CookieJar();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ui_locales: 'fr',
    });
    const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
    const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
    await postForm(jar, `${at}/identifier`, { csrf, identifier: user.userName });
    const sent = await postForm(jar, `${at}/email-code/send`, { csrf, identifier: user.userName });
    expect(sent.status).toBe(200);

    await expect.poll(() => smtp.received.filter((r) => r.envelope.to.includes(user.userName)).length, POLL).toBe(1);
    const { mail, envelope } = smtp.received.find((r) => r.envelope.to.includes(user.userName))!;
    expect(envelope.from).toBe('id@acme.example');
    expect(mail.subject).toBe('Votre code de connexion');
    expect(mail.text).toMatch(/^Votre code de connexion est \d{6}\. Vous pouvez aussi ouvrir ce lien/);
    expect(mail.html).toContain('Acme &lt;ID&gt;');
    expect(mail.html).toContain('border-top:4px solid #aa3300');
    expect(messagesTo(t.app, user.userName)).toEqual([]);

    const code = /\b(\d{6})\b/.exec(mail.text!)![1]!;
    const signedIn = await postForm(jar, `${at}/email-code`, { csrf, identifier: user.userName, code });
    expect(signedIn.status).toBe(303);
    await expect.poll(async () => (await messagesOf(env.tenantId, env.environmentId)).map((m) => m.status), POLL).toEqual(['sent']);
    const [message] = await messagesOf(env.tenantId, env.environmentId);
    expect(message).toMatchObject({ kind: 'sign_in_code', template: 'magic_link', provider: 'smtp', providerMessageId: mail.messageId });
  });

  it('marks a sent message bounced from Postmark’s bounce webhook, authenticated by the server token', async () => {
    const env = await oidcEnvironment(t);
    const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
    await put(`${base}/email-providers/postmark`, {
      provider: 'postmark',
      active: true,
      config: { from: 'noreply@example.com', baseUrl: postmark.url },
      secrets: { serverToken: TOKEN },
    });
    await t.app.messages.sender.send({
      template: 'password_reset',
      params: { link: 'https://id.example.com/p/x' },
      to: 'gone@example.org',
      environmentId: env.environmentId,
    });
    await expect.poll(async () => (await messagesOf(env.tenantId, env.environmentId)).map((m) => m.status), POLL).toEqual(['sent']);
    const [sent] = await messagesOf(env.tenantId, env.environmentId);

    const hook = (environment: string, password: string, payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/hooks/email/postmark/${environment}`,
        headers: { authorization: `Basic ${Buffer.from(`postmark:${password}`).toString('base64')}` },
        payload,
      });
    const bounce = {
      RecordType: 'Bounce',
      MessageID: sent!.providerMessageId,
      Type: 'HardBounce',
      TypeCode: 1,
      Email: 'gone@example.org',
      Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    };
    const wrong = await hook(env.environmentId, 'not-the-token', bounce);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('message_hook.unauthorized');
    expect((await hook(crypto.randomUUID(), TOKEN, bounce)).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/v1/hooks/email/postmark/${env.environmentId}`, payload: bounce })).statusCode).toBe(401);

    const ok = await hook(env.environmentId, TOKEN, bounce);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ ok: true, bounced: true });
    expect((await hook(env.environmentId, TOKEN, bounce)).json()).toEqual({ ok: true, bounced: false });
    expect((await hook(env.environmentId, TOKEN, { RecordType: 'Delivery', MessageID: sent!.providerMessageId })).json()).toEqual({ ok: true, bounced: false });
    const [bounced] = await messagesOf(env.tenantId, env.environmentId);
    expect(bounced).toMatchObject({ id: sent!.id, status: 'bounced', lastError: `HardBounce: ${bounce.Description}` });
    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId, type: 'message.bounced' });
    expect(events.map((e) => e.data.message)).toEqual([expect.objectContaining({ id: sent!.id, status: 'bounced' })]);
  });
});
