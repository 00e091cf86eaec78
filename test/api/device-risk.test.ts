// The device-risk policy's `challengeUnrecognized` on the hosted sign-in pages, over HTTP: a user's first device is
// known; a good password from another device asks for an emailed code (the user has no authenticator) and that device
// is known afterwards; a replayed cookie in another kind of browser, or a forged one, is no known device; a user with
// neither an authenticator nor a verified email is refused; a step-up whose codes are all wrong is a threat; off, the
// hook makes no query.
import type * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { deviceRiskHook } from '../../api/protections/device-risk.ts';
import { createKnownDevices } from '../../api/protections/known-devices.ts';
import type { Attempt } from '../../api/protections/pipeline.ts';
import { createStatementBatch } from '../../db/shared/statement-batch.ts';
import { bearer } from '../helpers/app.ts';
import { Browser, FIREFOX_WINDOWS } from '../helpers/device-risk.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo } from '../helpers/inbox.ts';
import { authorize, password, submit, toCallback, type Stop } from '../helpers/mfa-sign-in.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error', TRUST_PROXY: '127.0.0.1' });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const PASSWORD = 'correct horse battery';
const manage = (method: 'GET' | 'PUT' | 'POST', path: string, payload?: object) =>
  t.app.inject({
    method,
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`,
    headers: bearer(token),
    ...(payload ? { payload } : {}),
  });
const policy = async (settings: object) => expect((await manage('PUT', '/settings/device-risk-policy', settings)).statusCode).toBe(200);
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const threats = () =>
  t.pool.any(
    sql.unsafe`SELECT category, severity, subject, occurrences, evidence->>'reason' AS reason FROM threats WHERE environment_id = ${env.environmentId} ORDER BY created_at`,
  );
const devices = () => t.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM known_devices WHERE environment_id = ${env.environmentId}`);

async function user() {
  const u = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, u.id, PASSWORD);
  return u;
}

/** The sign-in of `userName` in `browser` up to the stop after the password. */
async function signIn(userName: string, browser: Browser) {
  const a = await authorize(rp, {}, browser.forgetSessions());
  return { ...a, after: await password(browser, a.stop, userName, PASSWORD) };
}
const isEmailPage = (stop: Stop) => /action="[^"]*\/mfa\/email"/.test(stop.body);
const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
/** Signs in without any step-up: the password leads to the client. */
async function signsInDirectly(userName: string, browser: Browser) {
  const s = await signIn(userName, browser);
  expect(s.after.callback !== undefined || s.after.kind === 'consent', `${s.after.status} ${s.after.body}`).toBe(true);
  return s.exchange(await toCallback(browser, s.after));
}

describe('device risk: an unrecognised device', () => {
  it('trusts the first device, asks another for an emailed code, then knows it', async () => {
    await policy({ challengeUnrecognized: true });
    const u = await user();
    const first = new Browser();
    expect((await signsInDirectly(u.userName, first)).amr).toEqual(['pwd']);
    const cookie = first.received.find((line) => line.startsWith('iam_device='))!;
    expect(cookie).toMatch(
      new RegExp(`^iam_device=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]+; Max-Age=34560000; Path=/v1/oidc/${env.environmentId}; HttpOnly; SameSite=Lax$`),
    );
    expect(await eventsOf('protection.stepped_up')).toEqual([]);

    const other = new Browser();
    const s = await signIn(u.userName, other);
    expect(isEmailPage(s.after), s.after.body).toBe(true);
    expect(s.after.body).toContain('We do not recognise this sign-in. To make sure it is you, we sent a 6-digit code to your email address.');
    expect(s.after.body).not.toContain('Set up an authenticator app instead');
    await expect.poll(() => messagesTo(t.app, u.userName).length).toBe(1);
    const [stepped] = await eventsOf('protection.stepped_up');
    expect(stepped!.data).toEqual({
      policy: 'device_risk',
      flow: 'sign_in',
      reason: 'unrecognized_device',
      userId: u.id,
      login: u.userName,
      ip: '127.0.0.1',
      userAgent: other.userAgent,
      threatId: null,
      method: 'email_code',
    });
    // Enrolling an authenticator instead is no way around it.
    const mfa = await other.fetch(s.after.at.replace(/\/mfa\/email$/, '/mfa'));
    expect(mfa.status, `${s.after.at} ${await mfa.clone().text()}`).toBe(303);
    expect(mfa.headers.get('location')).toMatch(/\/mfa\/email$/);

    const done = await submit(other, s.after, 'mfa/email', { code: codeOf(messagesTo(t.app, u.userName)[0]!.text) });
    expect((await s.exchange(await toCallback(other, done))).amr).toEqual(['pwd', 'otp', 'email', 'mfa']);
    expect(await devices()).toBe(2);

    // Both devices are known now.
    await signsInDirectly(u.userName, other);
    await signsInDirectly(u.userName, first);
    expect(await eventsOf('protection.stepped_up')).toHaveLength(1);
    expect((await eventsOf('user.signed_in')).map((e) => e.data.secondFactor)).toEqual([null, 'email_code', null, null]);
  });

  it('does not take a cookie replayed from another kind of browser, nor a forged one', async () => {
    await policy({ challengeUnrecognized: true });
    const u = await user();
    const first = new Browser();
    await signsInDirectly(u.userName, first);
    const stolen = new Browser(null, FIREFOX_WINDOWS);
    stolen.cookies.set('iam_device', first.cookies.get('iam_device')!);
    expect(isEmailPage((await signIn(u.userName, stolen)).after)).toBe(true);
    const forged = new Browser();
    forged.cookies.set('iam_device', `${first.cookies.get('iam_device')!.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(isEmailPage((await signIn(u.userName, forged)).after)).toBe(true);
    expect((await eventsOf('protection.stepped_up')).map((e) => e.data.reason)).toEqual(['unrecognized_device', 'unrecognized_device']);
  });

  it('refuses a user with no second factor and no verified email, with a threat', async () => {
    await policy({ challengeUnrecognized: true });
    const userName = `ada-${crypto.randomUUID().slice(0, 8)}`;
    const created = await manage('POST', '/directory/users', { userName, emails: [{ value: `${userName}@example.com` }] });
    expect(created.statusCode, created.body).toBe(201);
    const userId = (created.json().user as { id: string }).id;
    await setPassword(t, token, env.tenantId, env.environmentId, userId, PASSWORD);
    await signsInDirectly(userName, new Browser());

    const refused = await signIn(userName, new Browser(null, FIREFOX_WINDOWS, 'fr'));
    expect(refused.after.status).toBe(403);
    expect(refused.after.body).toContain('Connexion bloquée');
    const [blocked] = await eventsOf('protection.blocked');
    expect(blocked!.data).toMatchObject({
      policy: 'device_risk',
      reason: 'unrecognized_device',
      userId,
      login: userName,
      method: null,
      threatId: expect.any(String),
    });
    expect(await threats()).toEqual([
      { category: 'sign_in.device_risk', severity: 'medium', subject: `user:${userId}`, occurrences: 1, reason: 'unrecognized_device' },
    ]);
    expect((await eventsOf('user.signed_in')).map((e) => e.data)).toHaveLength(1);
  });

  it('records a step-up whose codes are all wrong as blocked, with a threat', async () => {
    await policy({ challengeUnrecognized: true });
    const u = await user();
    await signsInDirectly(u.userName, new Browser());
    const other = new Browser();
    const s = await signIn(u.userName, other);
    await expect.poll(() => messagesTo(t.app, u.userName).length).toBe(1);
    const wrong = codeOf(messagesTo(t.app, u.userName)[0]!.text) === '000000' ? '111111' : '000000';
    let stop = s.after;
    for (let i = 1; i < 5; i++) {
      stop = await submit(other, s.after, 'mfa/email', { code: wrong });
      expect(stop.status, stop.body).toBe(401);
    }
    expect(await threats()).toEqual([]);
    stop = await submit(other, s.after, 'mfa/email', { code: wrong });
    expect(stop.status).toBe(429);
    const blocked = await eventsOf('protection.blocked');
    expect(blocked.map((e) => e.data)).toEqual([
      expect.objectContaining({
        policy: 'device_risk',
        flow: 'second_factor',
        reason: 'step_up_failed',
        userId: u.id,
        stepUpReason: 'unrecognized_device',
        method: 'email_code',
      }),
    ]);
    expect(await threats()).toEqual([{ category: 'sign_in.device_risk', severity: 'high', subject: `user:${u.id}`, occurrences: 1, reason: 'step_up_failed' }]);
  });
});

describe('device risk after a sign-up', () => {
  it('knows the device the account was created on, and steps up another', async () => {
    await policy({ challengeUnrecognized: true });
    expect((await manage('PUT', '/settings/sign-in', { signUpEnabled: true })).statusCode).toBe(200);
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const creator = new Browser();
    const a = await authorize(rp, {}, creator);
    const verify = await submit(creator, a.stop, 'sign-up', { email, displayName: 'Grace', password: PASSWORD });
    expect(verify.status, verify.body).toBe(200);
    await expect.poll(() => messagesTo(t.app, email).length).toBe(1);
    const signUp = /name="signUp" value="([^"]*)"/.exec(verify.body)![1]!;
    const done = await submit(creator, verify, 'verify', { signUp, email, code: codeOf(messagesTo(t.app, email)[0]!.text) });
    await a.exchange(await toCallback(creator, done));
    expect(await devices()).toBe(1);

    expect(isEmailPage((await signIn(email, creator)).after)).toBe(false);
    expect(isEmailPage((await signIn(email, new Browser())).after)).toBe(true);
  });
});

describe('device risk after an emailed code', () => {
  it('asks nothing more of a user without an authenticator (the code proved the mailbox), an authenticator’s code of one with it', async () => {
    await policy({ challengeUnrecognized: true });
    expect((await manage('PUT', '/settings/sign-in', { emailCodeEnabled: true })).statusCode).toBe(200);
    const u = await user();
    await signsInDirectly(u.userName, new Browser());
    const other = new Browser();
    const a = await authorize(rp, {}, other);
    const factors = await submit(other, a.stop, 'identifier', { identifier: u.userName });
    const codePage = await submit(other, factors, 'email-code/send', { identifier: u.userName });
    expect(codePage.status, codePage.body).toBe(200);
    await expect.poll(() => messagesTo(t.app, u.userName).length).toBe(1);
    const done = await submit(other, codePage, 'email-code', { identifier: u.userName, code: codeOf(messagesTo(t.app, u.userName)[0]!.text) });
    expect((await a.exchange(await toCallback(other, done))).amr).toEqual(['otp', 'email']);
    expect(await eventsOf('protection.stepped_up')).toEqual([]);
    expect(await devices()).toBe(2);
    expect(isEmailPage((await signIn(u.userName, other)).after)).toBe(false);

    // A user with an authenticator is asked for its code after the emailed one.
    const started = await createMfaService(t.pool, t.masterKey).startTotpEnrolment({ tenantId: env.tenantId, environmentId: env.environmentId }, u.id);
    await t.pool.query(sql.unsafe`UPDATE user_totp_factors SET confirmed_at = now() WHERE id = ${started.factorId}`);
    const third = new Browser();
    const b = await authorize(rp, {}, third);
    const sent = await submit(third, await submit(third, b.stop, 'identifier', { identifier: u.userName }), 'email-code/send', { identifier: u.userName });
    await expect.poll(() => messagesTo(t.app, u.userName).length).toBe(2);
    const asked = await submit(third, sent, 'email-code', { identifier: u.userName, code: codeOf(messagesTo(t.app, u.userName)[1]!.text) });
    expect(asked.kind, asked.body).toBe('mfa');
    expect(asked.body).toContain('We do not recognise this sign-in.');
    expect((await eventsOf('protection.stepped_up')).map((e) => [e.data.reason, e.data.method, e.data.login])).toEqual([
      ['unrecognized_device', 'totp', u.userName],
    ]);
  });
});

describe('device risk off', () => {
  it('asks nothing, records no device and makes no query (nor with travel alone from an address without a location)', async () => {
    const u = await user();
    await signsInDirectly(u.userName, new Browser());
    await policy({ challengeUnrecognized: false, impossibleTravel: 'off' });
    await signsInDirectly(u.userName, new Browser());
    expect(await devices()).toBe(0);
    expect(await eventsOf('protection.stepped_up')).toEqual([]);

    let statements = 0;
    const counted = new Proxy(t.pool, {
      get: (pool, key, receiver) => {
        const value = Reflect.get(pool, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          statements++;
          return (value as (...a: unknown[]) => unknown).apply(pool, args);
        };
      },
    });
    const hook = deviceRiskHook(createKnownDevices({ pool: counted, masterKey: t.masterKey, publicBaseUrl: t.baseUrl }));
    const attempt: Attempt = {
      environmentId: env.environmentId,
      tenantId: env.tenantId,
      flow: 'sign_in',
      protections: {},
      login: u.userName,
      userId: u.id,
      origin: { ip: '81.2.69.142', userAgent: null, requestId: 'r' },
      fields: {},
      headers: {},
    };
    expect(await hook.succeeded!(attempt, createStatementBatch(counted))).toBeNull();
    expect(
      await hook.succeeded!(
        { ...attempt, protections: { device_risk: { challengeUnrecognized: false, impossibleTravel: 'off' } } },
        createStatementBatch(counted),
      ),
    ).toBeNull();
    // Impossible travel alone, from an address without a location: nothing to compare with.
    const privateAddress = { ...attempt, origin: { ...attempt.origin, ip: '10.0.0.1' } };
    expect(
      await hook.succeeded!(
        { ...privateAddress, protections: { device_risk: { challengeUnrecognized: false, impossibleTravel: 'strict' } } },
        createStatementBatch(counted),
      ),
    ).toBeNull();
    expect(statements).toBe(0);
    expect(
      await hook.succeeded!(
        { ...attempt, protections: { device_risk: { challengeUnrecognized: true, impossibleTravel: 'off' } } },
        createStatementBatch(counted),
      ),
    ).toBeNull();
    expect(statements).toBe(1);
  });
});
