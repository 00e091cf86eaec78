// A texted code as the second factor on the hosted sign-in pages, over HTTP: offered only where the MFA settings turn
// on smsSecondFactor and an SMS provider is active; enrolling a phone (a valid number in an allowed country, the
// texted code); signing in with the texted code (amr pwd+sms+mfa, acr mfa, secondFactor sms_code); wrong, expired
// and used codes refused and audited; the directory listing and removing the phone factor.
import type * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { snapshotOf } from '../../api/oidc/providers.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { directoryUser, oidcEnvironment, relyingParty, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';
import { authorize, follow, password, submit, toCallback, type Stop } from '../helpers/mfa-sign-in.ts';
import type { CookieJar } from '../helpers/oidc.ts';
import { activeSmsProvider, nthCode, startSmsFake, textsTo } from '../helpers/sms-codes.ts';
import { startSendingApp } from '../helpers/sending-app.ts';
import type { VendorFake } from '../helpers/vendor-fakes/sms-server.ts';

let t: OidcTestApp;
// One SMS fake for the file's tests: each test texts numbers no other test uses, since a text is sent by a durable
// process after its request answers and may reach the fake during the next test.
let fake: VendorFake;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  [t, fake] = await Promise.all([startSendingApp(), startSmsFake()]);
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => Promise.all([t.close(), fake.close()]));

const PASSWORD = 'correct horse battery';
const ACR_MFA = 'urn:iam:acr:mfa';
const ENROL_OFFER = '>Use a text message instead</a>';
const OFFER = '>Text me a code</button>';
const envPath = () => `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
const manage = (method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: object) =>
  t.app.inject({ method, url: `${envPath()}${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

async function policy(smsSecondFactor = true, extra: object = {}) {
  const res = await manage('PUT', '/settings/mfa', { mode: 'required', smsSecondFactor, ...extra });
  expect(res.statusCode, res.body).toBe(200);
}

/** A user with a password; with `phone`, a verified phone factor; with `totp`, an authenticator. */
async function user(o: { phone?: string; totp?: boolean } = {}) {
  const u = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, u.id, PASSWORD);
  if (o.phone) {
    await t.pool.query(sql.unsafe`
      INSERT INTO user_phone_factors (environment_id, user_id, phone_number) VALUES (${env.environmentId}, ${u.id}, ${o.phone})`);
  }
  if (!o.totp) return { ...u, secret: '' };
  const past = Date.now() - 60_000;
  const mfa = createMfaService(t.pool, t.masterKey, () => past);
  const mfaEnv = { tenantId: env.tenantId, environmentId: env.environmentId };
  const started = await mfa.startTotpEnrolment(mfaEnv, u.id);
  const confirmed = await mfa.confirmTotpEnrolment(mfaEnv, u.id, started.factorId, totpCode(started.secret, past));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  return { ...u, secret: started.secret };
}

async function secondFactorPage(u: { userName: string }, parameters: Record<string, string> = {}) {
  const a = await authorize(rp, parameters);
  return { ...a, asked: await password(a.jar, a.stop, u.userName, PASSWORD) };
}

const path = (stop: Stop) => /^(.*\/interaction\/[^/?]+)/.exec(new URL(stop.at).pathname)![1]!;
const postsTo = (stop: Stop, step: string) => stop.body.includes(`action="${path(stop)}/${step}"`);
/** GETs `<interaction>/<step>` with the sign-in's cookies. */
const visit = async (jar: CookieJar, stop: Stop, step: string) => {
  const url = `${new URL(stop.at).origin}${path(stop)}/${step}`;
  return follow(jar, await jar.fetch(url), url);
};
const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');
const failures = async () => (await eventsOf('user.sign_in_failed')).map((e) => [e.data.reason, e.data.secondFactor, e.data.stage, e.data.login]);
const sentLongAgo = () =>
  t.pool.query(sql.unsafe`UPDATE sign_in_sms_codes SET sent_at = now() - interval '31 seconds' WHERE environment_id = ${env.environmentId}`);

describe('a texted code as the second factor', () => {
  it('is offered only when smsSecondFactor is on and an SMS provider is active', async () => {
    const u = await user();
    await policy(false);
    await activeSmsProvider(t.app, token, envPath(), fake);
    const off = await secondFactorPage(u);
    expect(off.asked.kind, off.asked.body).toBe('enrol');
    expect(off.asked.body).not.toContain(ENROL_OFFER);
    expect((await visit(off.jar, off.asked, 'mfa/sms/enrol')).status).toBe(400);
    // A user with an authenticator and a phone is not offered the text either, and none is sent.
    const both = await user({ phone: '+14155550199', totp: true });
    const hidden = await secondFactorPage(both);
    expect(hidden.asked.kind, hidden.asked.body).toBe('mfa');
    expect(hidden.asked.body).not.toContain(OFFER);
    expect((await submit(hidden.jar, hidden.asked, 'mfa/sms/send')).status).toBe(400);

    await policy(true);
    expect((await manage('PUT', '/sms-providers/twilio', { active: false })).statusCode).toBe(200);
    const inactive = await secondFactorPage(u);
    expect(inactive.asked.body).not.toContain(ENROL_OFFER);
    expect((await submit(inactive.jar, inactive.asked, 'mfa/sms/enrol', { phone: '+14155550100' })).status).toBe(400);

    expect((await manage('PUT', '/sms-providers/twilio', { active: true })).statusCode).toBe(200);
    const on = await secondFactorPage(u);
    expect(on.asked.body).toContain(`<a href="${path(on.asked)}/mfa/sms/enrol">Use a text message instead</a>`);
    expect(textsTo(t.app, fake, '+14155550100')).toEqual([]);
    const shown = await secondFactorPage(both);
    expect(shown.asked.body).toContain(OFFER);
    expect(shown.asked.body).toContain(`action="${path(shown.asked)}/mfa/sms/send"`);
    expect(textsTo(t.app, fake, '+14155550199')).toEqual([]);
  });

  it('enrols a phone: refuses an invalid number and one outside allowedCountries, texts a code, and the code adds the factor', async () => {
    await policy();
    await activeSmsProvider(t.app, token, envPath(), fake, ['US', 'FR']);
    const u = await user();
    const a = await secondFactorPage(u);
    const form = await visit(a.jar, a.asked, 'mfa/sms/enrol');
    expect(form.status, form.body).toBe(200);
    expect(form.body).toContain('Add your phone number');
    expect(form.body).toMatch(/<input id="phone" name="phone" type="text" autocomplete="tel" required autofocus inputmode="tel"/);

    const invalid = await submit(a.jar, form, 'mfa/sms/enrol', { phone: '4155552671' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toContain('Enter a valid phone number in international format');
    expect(invalid.body).toContain('value="4155552671"');
    const german = await submit(a.jar, form, 'mfa/sms/enrol', { phone: '+49 151 12345678' });
    expect(german.status).toBe(400);
    expect(german.body).toContain('Text messages cannot be sent to numbers in Germany.');
    expect(await eventsOf('user.sms_code_sent')).toEqual([]);

    const sent = await submit(a.jar, form, 'mfa/sms/enrol', { phone: '+33 6 12 34 56 78' });
    expect(sent.status, sent.body).toBe(200);
    expect(sent.body).toContain('We sent a 6-digit code to your phone number ending in …5678.');
    expect(postsTo(sent, 'mfa/sms/enrol/confirm')).toBe(true);
    const code = await nthCode(t.app, fake, '+33612345678', 1);
    expect(textsTo(t.app, fake, '+33612345678')[0]).toEqual({
      kind: 'sms_code',
      text: `${code} is your verification code. It works once, for 10 minutes. Never share it.`,
    });
    expect((await eventsOf('user.sms_code_sent')).map((e) => e.data)).toEqual([
      {
        userId: u.id,
        clientId: env.clientId,
        phoneNumberHint: '…5678',
        country: 'FR',
        purpose: 'enrolment',
        expiresAt: expect.stringMatching(/Z$/),
        ip: '127.0.0.1',
      },
    ]);

    const wrong = await submit(a.jar, sent, 'mfa/sms/enrol/confirm', { code: otherCode(code) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('That code is not right. Check the text message and try again.');
    expect(await failures()).toEqual([['wrong_code', 'sms_code', 'enrolment', '…5678']]);

    const done = await submit(a.jar, wrong, 'mfa/sms/enrol/confirm', { code });
    const claims = await a.exchange(await toCallback(a.jar, done));
    expect(claims.amr).toEqual(['pwd', 'sms', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    const factors = (await manage('GET', `/directory/users/${u.id}/mfa-factors`)).json();
    const phone = factors.factors.find((f: { type: string }) => f.type === 'phone');
    expect(phone).toEqual({
      id: expect.any(String),
      type: 'phone',
      confirmed: true,
      createdAt: expect.stringMatching(/Z$/),
      confirmedAt: expect.stringMatching(/Z$/),
      lastUsedAt: expect.stringMatching(/Z$/),
      phoneNumber: '+33612345678',
    });
    expect((await eventsOf('user.mfa_enrolled')).map((e) => e.data)).toEqual([
      { userId: u.id, factor: 'phone', factorId: phone.id, phoneNumberHint: '…5678', country: 'FR' },
    ]);
    expect((await eventsOf('user.signed_in')).map((e) => e.data.secondFactor)).toEqual(['sms_code']);

    // The next sign-in goes to the texted code's page (no app to enrol any more).
    const next = await secondFactorPage(u);
    expect(postsTo(next.asked, 'mfa/sms/send'), next.asked.body).toBe(true);
    expect(next.asked.body).toContain('We will text a 6-digit code to your phone number ending in …5678.');

    // The administrator's reset removes it.
    const removed = await manage('DELETE', `/directory/users/${u.id}/mfa-factors/${phone.id}`);
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await manage('GET', `/directory/users/${u.id}/mfa-factors`)).json().factors.some((f: { type: string }) => f.type === 'phone')).toBe(false);
    expect((await eventsOf('user.mfa_removed')).map((e) => e.data)).toEqual([
      { userId: u.id, factor: 'phone', factorId: phone.id, confirmed: true, recoveryCodesRemoved: 0 },
    ]);
  });

  it('signs a user with a phone in with the texted code, in the sign-in’s locale: amr pwd+sms+mfa, acr mfa, secondFactor sms_code', async () => {
    await policy();
    await activeSmsProvider(t.app, token, envPath(), fake);
    const u = await user({ phone: '+14155550111', totp: true });
    // A user with an authenticator is offered the text beside it.
    const a = await secondFactorPage(u, { ui_locales: 'de' });
    expect(a.asked.kind, a.asked.body).toBe('mfa');
    expect(a.asked.body).toContain('>Code per SMS senden</button>');
    const sent = await submit(a.jar, a.asked, 'mfa/sms/send');
    expect(sent.status, sent.body).toBe(200);
    expect(sent.body).toContain('Wir haben einen 6-stelligen Code per SMS an Ihre Telefonnummer mit der Endung …0111 gesendet.');
    expect(sent.body).toMatch(/<input id="code" name="code" type="text" autocomplete="one-time-code" required autofocus inputmode="numeric"/);
    const code = await nthCode(t.app, fake, '+14155550111', 1);
    expect(textsTo(t.app, fake, '+14155550111')[0]!.text).toContain('ist Ihr Bestätigungscode');

    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, sent, 'mfa/sms', { code: ` ${code} ` })));
    expect(claims.amr).toEqual(['pwd', 'sms', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    expect((await eventsOf('user.signed_in')).map((e) => e.data)).toEqual([
      { userId: u.id, clientId: env.clientId, amr: ['pwd', 'sms', 'mfa'], ip: '127.0.0.1', remember: false, secondFactor: 'sms_code' },
    ]);
    expect((await eventsOf('user.sms_code_sent')).map((e) => e.data.purpose)).toEqual(['second_factor']);
    // The same code again: the sign-in is over.
    expect((await submit(a.jar, sent, 'mfa/sms', { code })).status).toBe(400);
  });

  it('refuses wrong, expired and used codes with a message and an audit entry, and counts them with the other codes', async () => {
    await policy();
    await activeSmsProvider(t.app, token, envPath(), fake);
    const u = await user({ phone: '+14155550122' });
    const a = await secondFactorPage(u);
    // A user with only a phone lands on the texted code's page, before any text is sent.
    expect(postsTo(a.asked, 'mfa/sms/send'), a.asked.body).toBe(true);
    expect(postsTo(a.asked, 'mfa/sms')).toBe(false);
    expect(textsTo(t.app, fake, '+14155550122')).toEqual([]);
    const sent = await submit(a.jar, a.asked, 'mfa/sms/send');
    const code = await nthCode(t.app, fake, '+14155550122', 1);

    const again = await submit(a.jar, sent, 'mfa/sms/send');
    expect(again.status).toBe(429);
    expect(again.body).toContain('A code was sent less than 30 seconds ago.');

    const wrong = await submit(a.jar, sent, 'mfa/sms', { code: otherCode(code) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('That code is not right. Check the text message and try again.');
    await t.pool.query(sql.unsafe`UPDATE sign_in_sms_codes SET expires_at = now() - interval '1 second' WHERE environment_id = ${env.environmentId}`);
    const expired = await submit(a.jar, sent, 'mfa/sms', { code });
    expect(expired.status).toBe(401);
    expect(expired.body).toContain('That code has expired. Ask for a new one.');
    await t.pool.query(
      sql.unsafe`UPDATE sign_in_sms_codes SET expires_at = now() + interval '5 minutes', used_at = now() WHERE environment_id = ${env.environmentId}`,
    );
    const used = await submit(a.jar, sent, 'mfa/sms', { code });
    expect(used.status).toBe(401);
    expect(used.body).toContain('That code was already used. Ask for a new one.');
    expect(await failures()).toEqual([
      ['wrong_code', 'sms_code', 'verification', '…0122'],
      ['code_expired', 'sms_code', 'verification', '…0122'],
      ['code_used', 'sms_code', 'verification', '…0122'],
    ]);
    expect(await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.sign_in_failed', resourceId: u.id })).toHaveLength(3);

    await sentLongAgo();
    const resent = await submit(a.jar, sent, 'mfa/sms/send');
    expect(resent.status).toBe(200);
    const second = await nthCode(t.app, fake, '+14155550122', 2);
    expect((await submit(a.jar, resent, 'mfa/sms', { code: otherCode(second) })).status).toBe(401);
    const tooMany = await submit(a.jar, resent, 'mfa/sms', { code: otherCode(second) });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toContain('Too many wrong codes');
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('asks a user whose only factor is a phone under the optional policy, while texting is on', async () => {
    await activeSmsProvider(t.app, token, envPath(), fake);
    const u = await user({ phone: '+14155550166' });
    const optional = (smsSecondFactor: boolean) => manage('PUT', '/settings/mfa', { mode: 'optional', smsSecondFactor });
    expect((await optional(true)).statusCode).toBe(200);
    const asked = await secondFactorPage(u);
    expect(postsTo(asked.asked, 'mfa/sms/send'), asked.asked.body).toBe(true);
    // Texting off: the phone is no factor the pages use, so nothing is asked.
    expect((await optional(false)).statusCode).toBe(200);
    const notAsked = await secondFactorPage(u);
    const claims = await notAsked.exchange(await toCallback(notAsked.jar, notAsked.asked));
    expect(claims.amr).toEqual(['pwd']);
  });

  it('refuses texts over the hourly rates (per number, per environment): a 429 page, sms.rate_limited, and a sign_in.sms_pumping threat', async () => {
    await policy(true, { smsRateLimit: { perEnvironmentPerHour: 3, perNumberPerHour: 2 } });
    await activeSmsProvider(t.app, token, envPath(), fake);
    const ada = await user({ phone: '+14155550133' });
    const a = await secondFactorPage(ada);
    let page = await submit(a.jar, a.asked, 'mfa/sms/send');
    expect(page.status).toBe(200);
    await sentLongAgo();
    expect((await submit(a.jar, page, 'mfa/sms/send')).status).toBe(200);
    await sentLongAgo();
    page = await submit(a.jar, page, 'mfa/sms/send');
    expect(page.status).toBe(429);
    expect(page.body).toContain('Too many text messages were sent recently. Try again later, or sign in another way.');
    // The code sent before still works: the page still asks for it.
    expect(postsTo(page, 'mfa/sms')).toBe(true);
    await sentLongAgo();
    expect((await submit(a.jar, page, 'mfa/sms/send')).status).toBe(429);
    await nthCode(t.app, fake, '+14155550133', 2);
    expect(textsTo(t.app, fake, '+14155550133')).toHaveLength(2);

    // Another number: the third text of the hour in the environment is sent, the fourth is not.
    const bob = await user({ phone: '+14155550144' });
    const b = await secondFactorPage(bob);
    expect((await submit(b.jar, b.asked, 'mfa/sms/send')).status).toBe(200);
    const cleo = await user({ phone: '+14155550155' });
    const c = await secondFactorPage(cleo);
    expect((await submit(c.jar, c.asked, 'mfa/sms/send')).status).toBe(429);
    expect(textsTo(t.app, fake, '+14155550155')).toEqual([]);

    const limited = (await eventsOf('sms.rate_limited')).map((e) => e.data);
    const common = { environmentId: env.environmentId, clientId: env.clientId, country: 'US', purpose: 'second_factor', ip: '127.0.0.1' };
    expect(limited).toEqual([
      { ...common, userId: ada.id, limit: 'number', maxPerHour: 2, phoneNumberHint: '…0133', threatId: expect.any(String) },
      { ...common, userId: ada.id, limit: 'number', maxPerHour: 2, phoneNumberHint: '…0133', threatId: limited[0]!.threatId },
      { ...common, userId: cleo.id, limit: 'environment', maxPerHour: 3, phoneNumberHint: '…0155', threatId: expect.any(String) },
    ]);
    expect(await auditEntries(t, { tenantId: env.tenantId }, { action: 'sms.rate_limited' })).toHaveLength(3);

    const threats = (await manage('GET', '/threats?category=sign_in.sms_pumping')).json().threats as Record<string, unknown>[];
    const byId = new Map(threats.map((th) => [th.id, th]));
    expect(byId.get(limited[0]!.threatId)).toMatchObject({
      category: 'sign_in.sms_pumping',
      severity: 'medium',
      status: 'open',
      subject: 'phone:…0133',
      occurrences: 2,
      evidence: { limit: 'number', maxPerHour: 2, phoneNumberHint: '…0133', country: 'US', userId: ada.id, ip: '127.0.0.1', userAgent: expect.any(String) },
    });
    expect(byId.get(limited[2]!.threatId)).toMatchObject({ severity: 'high', subject: `environment:${env.environmentId}`, occurrences: 1 });
    expect((await eventsOf('threat.created')).length).toBe(2);
    expect((await eventsOf('threat.updated')).map((e) => e.data.change)).toEqual(['occurrence']);
  });

  it('steps a user whose only factor is a phone up with a texted code on an unrecognised device (device risk)', async () => {
    await policy(true, { mode: 'off' });
    await activeSmsProvider(t.app, token, envPath(), fake);
    expect((await manage('PUT', '/settings/device-risk-policy', { challengeUnrecognized: true })).statusCode).toBe(200);
    await expect.poll(async () => snapshotOf(await t.app.oidc.get(env.environmentId)).protections.device_risk?.challengeUnrecognized).toBe(true);
    const u = await user({ phone: '+14155550188' });
    // The user's first device is trusted; a sign-in from another (a new cookie jar) is asked for a texted code.
    const trusted = await secondFactorPage(u);
    expect(trusted.asked.at).not.toContain('/mfa');
    const doubted = await secondFactorPage(u);
    expect(doubted.asked.at, doubted.asked.body).toMatch(/\/mfa\/sms$/);
    const sent = await submit(doubted.jar, doubted.asked, 'mfa/sms/send');
    expect(sent.status, sent.body).toBe(200);
    expect(sent.body).toContain('We sent a 6-digit code to your phone number ending in …0188.');
    const code = await nthCode(t.app, fake, '+14155550188', 1);
    // `…/mfa` sends back to the texted code's page rather than to an enrolment.
    expect((await visit(doubted.jar, doubted.asked, 'mfa')).at).toMatch(/\/mfa\/sms$/);
    const claims = await doubted.exchange(await toCallback(doubted.jar, await submit(doubted.jar, sent, 'mfa/sms', { code })));
    expect(claims.amr).toEqual(['pwd', 'sms', 'mfa']);
    expect((await eventsOf('protection.stepped_up')).map((e) => [e.data.policy, e.data.reason, e.data.method])).toEqual([
      ['device_risk', 'unrecognized_device', 'sms_code'],
    ]);
  });
});
