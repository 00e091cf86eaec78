// An emailed code as the second factor on the hosted sign-in pages, over HTTP: offered only where the MFA settings
// turn it on and the user has a verified email (and never after an emailed code as the first factor); the code from
// the inbox finishes with amr otp+email+mfa and acr mfa; wrong, expired and used codes say why and count in the
// MFA failure budget; a new code at most every 30 s; a user who must enrol may choose the email code instead.
import type * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, postForm, setPassword } from '../helpers/sign-in.ts';
import { authorize, follow, password, submit, toCallback, type Stop } from '../helpers/mfa-sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const PASSWORD = 'correct horse battery';
const ACR_MFA = 'urn:iam:acr:mfa';
const OFFER = '>Email me a code instead</button>';
const manage = (method: 'GET' | 'PUT' | 'POST', path: string, payload?: object) =>
  t.app.inject({
    method,
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`,
    headers: bearer(token),
    ...(payload ? { payload } : {}),
  });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

async function policy(mode: 'off' | 'optional' | 'required', emailCodeSecondFactor = true) {
  const res = await manage('PUT', '/settings/mfa', { mode, emailCodeSecondFactor });
  expect(res.statusCode, res.body).toBe(200);
}

/** A user whose email is verified, with a password; `enrolled`: with a TOTP authenticator too. */
async function verifiedUser(enrolled = true) {
  const user = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
  if (!enrolled) return { ...user, secret: '' };
  const past = Date.now() - 60_000;
  const mfa = createMfaService(t.pool, t.masterKey, () => past);
  const mfaEnv = { tenantId: env.tenantId, environmentId: env.environmentId };
  const started = await mfa.startTotpEnrolment(mfaEnv, user.id);
  const confirmed = await mfa.confirmTotpEnrolment(mfaEnv, user.id, started.factorId, totpCode(started.secret, past));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  return { ...user, secret: started.secret };
}

/** Up to the second-factor page of `user`. */
async function secondFactorPage(user: { userName: string }, parameters: Record<string, string> = {}) {
  const a = await authorize(rp, parameters);
  const asked = await password(a.jar, a.stop, user.userName, PASSWORD);
  return { ...a, asked };
}

const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');
const isEmailPage = (stop: Stop) => /action="[^"]*\/mfa\/email"/.test(stop.body);
const expireCodes = () =>
  t.pool.query(sql.unsafe`UPDATE sign_in_email_codes SET expires_at = now() - interval '1 second' WHERE environment_id = ${env.environmentId}`);
const sentLongAgo = () =>
  t.pool.query(sql.unsafe`UPDATE sign_in_email_codes SET sent_at = now() - interval '31 seconds' WHERE environment_id = ${env.environmentId}`);
const failureReasons = async () => (await eventsOf('user.sign_in_failed')).map((e) => [e.data.reason, (e.data as { secondFactor?: string }).secondFactor]);

describe('an emailed code as the second factor', () => {
  it('is offered only when the setting is on and the user has a verified email', async () => {
    await policy('required', false);
    const user = await verifiedUser();
    const off = await secondFactorPage(user);
    expect(off.asked.kind, off.asked.body).toBe('mfa');
    expect(off.asked.body).not.toContain(OFFER);
    expect((await submit(off.jar, off.asked, 'mfa/email/send')).status).toBe(400);
    expect(messagesTo(t.app, user.userName)).toEqual([]);

    await policy('required');
    const on = await secondFactorPage(user);
    expect(on.asked.body).toContain(OFFER);
    expect(on.asked.body).toContain(`action="${new URL(on.asked.at).pathname}/email/send"`);

    // A user whose email was never verified (created through the directory API) is not offered it.
    const userName = `ada-${crypto.randomUUID().slice(0, 8)}`;
    const created = await manage('POST', '/directory/users', { userName, emails: [{ value: `${userName}@example.com` }] });
    expect(created.statusCode, created.body).toBe(201);
    await setPassword(t, token, env.tenantId, env.environmentId, (created.json().user as { id: string }).id, PASSWORD);
    const unverified = await secondFactorPage({ userName });
    expect(unverified.asked.kind, unverified.asked.body).toBe('enrol');
    expect(unverified.asked.body).not.toContain(OFFER);
    expect((await submit(unverified.jar, unverified.asked, 'mfa/email/send')).status).toBe(400);
    expect(messagesTo(t.app, `${userName}@example.com`)).toEqual([]);
  });

  it('sends a code in the sign-in’s locale; the code finishes with amr pwd+otp+email+mfa, acr mfa and secondFactor email_code', async () => {
    await policy('required');
    const user = await verifiedUser();
    const a = await secondFactorPage(user);
    const sent = await submit(a.jar, a.asked, 'mfa/email/send');
    expect(sent.status, sent.body).toBe(200);
    expect(isEmailPage(sent)).toBe(true);
    expect(sent.body).toContain('We sent a 6-digit code to your email address.');
    expect(sent.body).toMatch(/<input id="code" name="code" type="text" autocomplete="one-time-code" required autofocus inputmode="numeric"/);
    const message = await waitForMessage(t.app, user.userName, 'sign_in_code');
    expect(message.subject).toBe('Your verification code');
    expect(message.text).not.toContain('http');
    expect((await eventsOf('user.email_code_sent')).map((e) => e.data)).toEqual([
      { userId: user.id, clientId: env.clientId, email: user.userName, expiresAt: expect.stringMatching(/Z$/), ip: '127.0.0.1', purpose: 'second_factor' },
    ]);

    const done = await submit(a.jar, sent, 'mfa/email', { code: ` ${codeOf(message.text)} ` });
    const claims = await a.exchange(await toCallback(a.jar, done));
    expect(claims.amr).toEqual(['pwd', 'otp', 'email', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    expect((await eventsOf('user.signed_in')).map((e) => e.data)).toEqual([
      { userId: user.id, clientId: env.clientId, amr: ['pwd', 'otp', 'email', 'mfa'], ip: '127.0.0.1', remember: false, secondFactor: 'email_code' },
    ]);

    // The same code again: the sign-in is over, so the page says start again.
    expect((await submit(a.jar, sent, 'mfa/email', { code: codeOf(message.text) })).status).toBe(400);

    const german = await secondFactorPage(user, { ui_locales: 'de' });
    const deSent = await submit(german.jar, german.asked, 'mfa/email/send');
    expect(deSent.body).toContain('Wir haben einen 6-stelligen Code an Ihre E-Mail-Adresse gesendet.');
    await expect.poll(() => messagesTo(t.app, user.userName).length).toBe(2);
    expect(messagesTo(t.app, user.userName).at(-1)!.subject).toBe('Ihr Bestätigungscode');
  });

  it('says why a code is refused (wrong, expired, used), records each, and counts them with TOTP codes', async () => {
    await policy('required');
    const user = await verifiedUser();
    const a = await secondFactorPage(user);
    const sent = await submit(a.jar, a.asked, 'mfa/email/send');
    const code = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);

    const wrong = await submit(a.jar, sent, 'mfa/email', { code: otherCode(code) });
    expect(wrong.status).toBe(401);
    expect(isEmailPage(wrong)).toBe(true);
    expect(wrong.body).toContain('That code is not right. Check the email and try again.');

    await expireCodes();
    const expired = await submit(a.jar, wrong, 'mfa/email', { code });
    expect(expired.status).toBe(401);
    expect(expired.body).toContain('That code has expired. Ask for a new one.');

    await t.pool.query(
      sql.unsafe`UPDATE sign_in_email_codes SET expires_at = now() + interval '5 minutes', used_at = now() WHERE environment_id = ${env.environmentId}`,
    );
    const used = await submit(a.jar, expired, 'mfa/email', { code });
    expect(used.status).toBe(401);
    expect(used.body).toContain('That code was already used. Ask for a new one.');

    // Two wrong TOTP codes make five wrong codes at this sign-in: it starts again.
    const totp = await follow(a.jar, await a.jar.fetch(a.asked.at), a.asked.at);
    const bad = totpCode(user.secret, Date.now()) === '000000' ? '111111' : '000000';
    expect((await submit(a.jar, totp, 'mfa/totp', { code: bad })).status).toBe(401);
    const tooMany = await submit(a.jar, totp, 'mfa/totp', { code: bad });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toContain('Too many wrong codes');
    expect((await submit(a.jar, used, 'mfa/email', { code })).status).toBe(400);

    expect(await failureReasons()).toEqual([
      ['wrong_code', 'email_code'],
      ['code_expired', 'email_code'],
      ['code_used', 'email_code'],
    ]);
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.sign_in_failed', resourceId: user.id });
    expect(audit).toHaveLength(3);
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('sends a new code at most every 30 s; a new code replaces the previous one', async () => {
    await policy('required');
    const user = await verifiedUser();
    const a = await secondFactorPage(user);
    const sent = await submit(a.jar, a.asked, 'mfa/email/send');
    const first = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);

    const again = await submit(a.jar, sent, 'mfa/email/send');
    expect(again.status).toBe(429);
    expect(isEmailPage(again)).toBe(true);
    expect(again.body).toContain('A code was sent less than 30 seconds ago.');
    expect(messagesTo(t.app, user.userName)).toHaveLength(1);

    await sentLongAgo();
    const resent = await submit(a.jar, again, 'mfa/email/send');
    expect(resent.status).toBe(200);
    await expect.poll(() => messagesTo(t.app, user.userName).length).toBe(2);
    const second = codeOf(messagesTo(t.app, user.userName).at(-1)!.text);
    if (second !== first) {
      const old = await submit(a.jar, resent, 'mfa/email', { code: first });
      expect(old.status).toBe(401);
    }
    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, resent, 'mfa/email', { code: second })));
    expect(claims.amr).toEqual(['pwd', 'otp', 'email', 'mfa']);
  });

  it('is not offered after an emailed code as the first factor: only the authenticator (or a recovery code)', async () => {
    await policy('required');
    const settings = await manage('PUT', '/settings/sign-in', { emailCodeEnabled: true });
    expect(settings.statusCode, settings.body).toBe(200);
    const user = await verifiedUser();
    const a = await authorize(rp);
    const factors = await submit(a.jar, a.stop, 'identifier', { identifier: user.userName });
    const codePage = await follow(
      a.jar,
      await postForm(a.jar, `${/^(.*\/interaction\/[^/?]+)/.exec(factors.at)![1]}/email-code/send`, { csrf: factors.csrf, identifier: user.userName }),
      factors.at,
    );
    const code = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);
    const asked = await submit(a.jar, { ...codePage, csrf: inputValue(codePage.body, 'csrf')! }, 'email-code', { identifier: user.userName, code });
    expect(asked.kind, asked.body).toBe('mfa');
    expect(asked.body).not.toContain(OFFER);
    expect((await submit(a.jar, asked, 'mfa/email/send')).status).toBe(400);
    expect(messagesTo(t.app, user.userName)).toHaveLength(1);
    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, asked, 'mfa/totp', { code: totpCode(user.secret, Date.now()) })));
    expect(claims.amr).toEqual(['otp', 'email', 'mfa']);
  });

  it('keeps its code to its own user and purpose: not a first factor, not for another user at the same sign-in', async () => {
    await policy('required');
    expect((await manage('PUT', '/settings/sign-in', { emailCodeEnabled: true })).statusCode).toBe(200);
    const ada = await verifiedUser();
    const bob = await verifiedUser();
    const a = await secondFactorPage(ada);
    const sent = await submit(a.jar, a.asked, 'mfa/email/send');
    const code = codeOf((await waitForMessage(t.app, ada.userName, 'sign_in_code')).text);

    // The second factor's code typed as a first factor's: refused, nobody signed in.
    const asFirst = await submit(a.jar, sent, 'email-code', { identifier: ada.userName, code });
    expect(asFirst.status).toBe(401);

    // Another user's password at the same sign-in: Ada's code is no code of Bob's.
    const bobAsked = await submit(a.jar, sent, 'login', { identifier: bob.userName, password: PASSWORD });
    expect(bobAsked.kind, bobAsked.body).toBe('mfa');
    const refused = await submit(a.jar, bobAsked, 'mfa/email', { code });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('That code is not right.');
    expect(await failureReasons()).toEqual([['wrong_code', 'email_code']]);
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('lets a user who must enrol choose the email code instead of an authenticator', async () => {
    await policy('required');
    const user = await verifiedUser(false);
    const a = await secondFactorPage(user);
    expect(a.asked.kind, a.asked.body).toBe('enrol');
    expect(a.asked.body).toContain(OFFER);
    const sent = await submit(a.jar, a.asked, 'mfa/email/send');
    expect(isEmailPage(sent)).toBe(true);
    expect(sent.body).toContain(`href="${new URL(a.asked.at).pathname}">Set up an authenticator app instead</a>`);
    const code = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);
    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, sent, 'mfa/email', { code })));
    expect(claims.amr).toEqual(['pwd', 'otp', 'email', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    const factors = await manage('GET', `/directory/users/${user.id}/mfa-factors`);
    expect(factors.json().factors).toEqual([expect.objectContaining({ type: 'totp', confirmed: false })]);
  });
});
