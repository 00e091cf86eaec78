// The device-risk policy's `impossibleTravel` on the hosted sign-in pages, over HTTP behind a trusted proxy (the
// client address from X-Forwarded-For): London then Tokyo 12 hours later (~700 km/h beyond the accuracy radii) passes
// `normal` and is stepped up under `strict`; an hour later it is stepped up under `normal` too; an address without a
// location never is. A user with an authenticator is asked for its code, and "remember this device" does not spare it.
import type * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer } from '../helpers/app.ts';
import { Browser, IP_GB, IP_JP } from '../helpers/device-risk.ts';
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
const manage = (method: 'PUT' | 'PATCH', path: string, payload: object) =>
  t.app.inject({ method, url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`, headers: bearer(token), payload });
const policy = async (impossibleTravel: 'off' | 'normal' | 'strict') =>
  expect((await manage('PUT', '/settings/device-risk-policy', { impossibleTravel })).statusCode).toBe(200);
const stepUps = async () =>
  (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === 'protection.stepped_up').map((e) => e.data);
/** The user's last located sign-in happened `hours` ago. */
const lastSeenAgo = (hours: number) =>
  t.pool.query(sql.unsafe`UPDATE known_devices SET located_at = now() - make_interval(hours => ${hours}) WHERE environment_id = ${env.environmentId}`);
const isEmailPage = (stop: Stop) => /action="[^"]*\/mfa\/email"/.test(stop.body);

async function user() {
  const u = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, u.id, PASSWORD);
  return u;
}
async function signIn(userName: string, browser: Browser) {
  const a = await authorize(rp, {}, browser.forgetSessions());
  return { ...a, after: await password(browser, a.stop, userName, PASSWORD) };
}
async function signsInDirectly(userName: string, browser: Browser) {
  const s = await signIn(userName, browser);
  expect(s.after.callback !== undefined || s.after.kind === 'consent', `${s.after.status} ${s.after.body}`).toBe(true);
  return s.exchange(await toCallback(browser, s.after));
}

describe('device risk: impossible travel', () => {
  it('steps up a sign-in faster than 500 km/h under strict, 1000 km/h under normal', async () => {
    await policy('normal');
    const u = await user();
    const browser = new Browser(IP_GB);
    await signsInDirectly(u.userName, browser);
    await lastSeenAgo(12);
    browser.ip = IP_JP;
    await signsInDirectly(u.userName, browser);
    expect(await stepUps()).toEqual([]);

    await policy('strict');
    await lastSeenAgo(12);
    browser.ip = IP_GB;
    const strict = await signIn(u.userName, browser);
    expect(isEmailPage(strict.after), strict.after.body).toBe(true);
    const [stepped] = await stepUps();
    expect(stepped).toEqual({
      policy: 'device_risk',
      flow: 'sign_in',
      reason: 'impossible_travel',
      userId: u.id,
      login: u.userName,
      ip: IP_GB,
      userAgent: browser.userAgent,
      threatId: null,
      fromCountry: 'JP',
      toCountry: 'GB',
      distanceKm: expect.any(Number),
      hours: 12,
      speedKmh: expect.any(Number),
      limitKmh: 500,
      knownDevice: true,
      method: 'email_code',
    });
    expect(stepped!.speedKmh).toBeGreaterThan(500);
    expect(stepped!.speedKmh).toBeLessThan(1000);
    await expect.poll(() => messagesTo(t.app, u.userName).length).toBe(1);
    const code = /\b(\d{6})\b/.exec(messagesTo(t.app, u.userName)[0]!.text)![1]!;
    await toCallback(browser, await submit(browser, strict.after, 'mfa/email', { code }));

    // Now in London: Tokyo an hour later is too fast even for `normal`.
    await policy('normal');
    await lastSeenAgo(1);
    browser.ip = IP_JP;
    expect(isEmailPage((await signIn(u.userName, browser)).after)).toBe(true);
    expect((await stepUps()).map((e) => [e.reason, e.fromCountry, e.toCountry, e.limitKmh])).toEqual([
      ['impossible_travel', 'JP', 'GB', 500],
      ['impossible_travel', 'GB', 'JP', 1000],
    ]);
  });

  it('never steps up an address without a location, nor with travel off', async () => {
    await policy('strict');
    const u = await user();
    const browser = new Browser(IP_GB);
    await signsInDirectly(u.userName, browser);
    browser.ip = '10.1.2.3';
    await signsInDirectly(u.userName, browser);
    browser.ip = null;
    await signsInDirectly(u.userName, browser);
    await policy('off');
    browser.ip = IP_JP;
    await signsInDirectly(u.userName, browser);
    expect(await stepUps()).toEqual([]);
  });

  it('asks a user with an authenticator for its code, even on a remembered device', async () => {
    await policy('normal');
    expect((await manage('PUT', '/settings/mfa', { mode: 'optional' })).statusCode).toBe(200);
    expect((await manage('PATCH', '/settings/session', { rememberDeviceSeconds: 3600 })).statusCode).toBe(200);
    const u = await user();
    const past = Date.now() - 120_000;
    const mfa = createMfaService(t.pool, t.masterKey, () => past);
    const mfaEnv = { tenantId: env.tenantId, environmentId: env.environmentId };
    const started = await mfa.startTotpEnrolment(mfaEnv, u.id);
    expect((await mfa.confirmTotpEnrolment(mfaEnv, u.id, started.factorId, totpCode(started.secret, past))).ok).toBe(true);

    const browser = new Browser(IP_GB);
    const first = await signIn(u.userName, browser);
    expect(first.after.kind).toBe('mfa');
    expect(first.after.body).toContain('Enter your authentication code');
    const remembered = await submit(browser, first.after, 'mfa/totp', { code: totpCode(started.secret, Date.now() - 30_000), rememberDevice: 'yes' });
    await toCallback(browser, remembered);
    // The remembered device spares the code at home.
    await signsInDirectly(u.userName, browser);

    await lastSeenAgo(1);
    browser.ip = IP_JP;
    const away = await signIn(u.userName, browser);
    expect(away.after.kind, away.after.body).toBe('mfa');
    expect(away.after.body).toContain('We do not recognise this sign-in. To make sure it is you, open your authenticator app');
    expect((await stepUps()).map((e) => [e.reason, e.method])).toEqual([['impossible_travel', 'totp']]);
    const done = await submit(browser, away.after, 'mfa/totp', { code: totpCode(started.secret, Date.now()) });
    expect((await away.exchange(await toCallback(browser, done))).amr).toEqual(['pwd', 'otp', 'mfa']);
  });
});
