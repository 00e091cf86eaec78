// The second factor on the hosted sign-in pages, driven over HTTP: the policy matrix (off, optional, required, by
// role), TOTP with replay refused, enrolment with the recovery codes shown once, recovery codes used once, "remember
// this device" (and a tampered cookie ignored), and step-up by acr_values and max_age; the ID token's acr and amr.
import type * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, setPassword } from '../helpers/sign-in.ts';
import { waitForMessage } from '../helpers/inbox.ts';
import { authorize, follow, password, submit, toCallback } from '../helpers/mfa-sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const PASSWORD = 'correct horse battery';
const ACR_MFA = 'urn:iam:acr:mfa';
const manage = (method: 'GET' | 'PUT' | 'PATCH' | 'POST', path: string, payload?: object) =>
  t.app.inject({
    method,
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`,
    headers: bearer(token),
    ...(payload ? { payload } : {}),
  });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

async function policy(mode: 'off' | 'optional' | 'required', extra: { requiredRoleKeys?: string[] } = {}) {
  const res = await manage('PUT', '/settings/mfa', { mode, ...extra });
  expect(res.statusCode, res.body).toBe(200);
}

/** The session config's remember-device lifetime (null: devices are never remembered). */
async function rememberFor(rememberDeviceSeconds: number | null) {
  const res = await manage('PATCH', '/settings/session', { rememberDeviceSeconds });
  expect(res.statusCode, res.body).toBe(200);
}

async function newUser() {
  const userName = `ada-${crypto.randomUUID().slice(0, 8)}`;
  const res = await manage('POST', '/directory/users', { userName, emails: [{ value: `${userName}@example.com` }] });
  expect(res.statusCode, res.body).toBe(201);
  const id = (res.json().user as { id: string }).id;
  await setPassword(t, token, env.tenantId, env.environmentId, id, PASSWORD);
  return { id, userName };
}

/** A user with an authenticator, confirmed a minute ago (so codes of now and of the next step are fresh). */
async function enrolledUser() {
  const user = await newUser();
  const past = Date.now() - 60_000;
  const mfa = createMfaService(t.pool, t.masterKey, () => past);
  const mfaEnv = { tenantId: env.tenantId, environmentId: env.environmentId };
  const started = await mfa.startTotpEnrolment(mfaEnv, user.id);
  const confirmed = await mfa.confirmTotpEnrolment(mfaEnv, user.id, started.factorId, totpCode(started.secret, past));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  return { ...user, secret: started.secret, recoveryCodes: confirmed.recoveryCodes };
}

const code = (secret: string, offsetSteps = 0) => totpCode(secret, Date.now() + offsetSteps * 30_000);

describe('the MFA policy on the sign-in pages', () => {
  it('off: a user with an authenticator signs in with the password alone (amr pwd, no acr)', async () => {
    const user = await enrolledUser();
    const a = await authorize(rp);
    const claims = await a.exchange(await toCallback(a.jar, await password(a.jar, a.stop, user.userName, PASSWORD)));
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.acr).toBeUndefined();
  });

  it('optional: asks only users with an authenticator; the code signs in with amr pwd+otp+mfa and acr mfa', async () => {
    await policy('optional');
    const plain = await newUser();
    const a = await authorize(rp);
    expect((await a.exchange(await toCallback(a.jar, await password(a.jar, a.stop, plain.userName, PASSWORD)))).amr).toEqual(['pwd']);

    const user = await enrolledUser();
    const b = await authorize(rp);
    const asked = await password(b.jar, b.stop, user.userName, PASSWORD);
    expect(asked.kind, asked.body).toBe('mfa');
    expect(asked.at).toBe(`${b.stop.at}/mfa`);
    expect(asked.body).toContain('autocomplete="one-time-code"');
    expect(asked.body).toContain('inputmode="numeric"');
    expect(asked.body).not.toContain('name="rememberDevice"');
    const claims = await b.exchange(await toCallback(b.jar, await submit(b.jar, asked, 'mfa/totp', { code: code(user.secret) })));
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    const signedIn = (await eventsOf('user.signed_in')).map((e) => e.data);
    expect(signedIn).toEqual([
      { userId: plain.id, clientId: env.clientId, amr: ['pwd'], ip: '127.0.0.1', remember: false, secondFactor: null },
      { userId: user.id, clientId: env.clientId, amr: ['pwd', 'otp', 'mfa'], ip: '127.0.0.1', remember: false, secondFactor: 'totp' },
    ]);
  });

  it('optional with required roles: a holder of the role without an authenticator enrols (QR inline, key as text), sees the recovery codes once, then signs in', async () => {
    expect((await manage('POST', '/rbac/roles', { key: 'admin' })).statusCode).toBe(201);
    await policy('optional', { requiredRoleKeys: ['admin'] });
    const user = await newUser();
    expect((await manage('POST', '/rbac/assignments', { role: 'admin', userId: user.id })).statusCode).toBe(201);
    const a = await authorize(rp);
    const enrol = await password(a.jar, a.stop, user.userName, PASSWORD);
    expect(enrol.kind, enrol.body).toBe('enrol');
    expect(enrol.body).toMatch(/<div class="qr" role="img" aria-label="[^"]+"><svg /);
    expect(enrol.response.headers.get('content-security-policy')).toContain("img-src 'none'");
    const secret = /<code id="secret">([A-Z2-7 ]+)<\/code>/.exec(enrol.body)![1]!.replace(/ /g, '');

    const wrong = await submit(a.jar, enrol, 'mfa/enrol', { code: '000000' === code(secret) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.kind).toBe('enrol');
    expect(wrong.body).toContain('That code is not right or has expired.');
    expect(wrong.body).toContain(`<code id="secret">${/<code id="secret">([^<]+)/.exec(enrol.body)![1]}</code>`);

    const reloaded = await a.jar.fetch(enrol.at);
    expect(await reloaded.text()).toContain(`<code id="secret">${/<code id="secret">([^<]+)/.exec(enrol.body)![1]}</code>`);
    const codes = await submit(a.jar, wrong, 'mfa/enrol', { code: code(secret) });
    expect(codes.kind, codes.body).toBe('codes');
    const recovery = [...codes.body.matchAll(/<li><code>([A-Z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(recovery).toHaveLength(10);
    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, codes, 'mfa/done')));
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await eventsOf('user.mfa_enrolled')).map((e) => e.data)).toEqual([expect.objectContaining({ userId: user.id, factor: 'totp' })]);

    // A user without the role is not asked.
    const other = await newUser();
    const b = await authorize(rp);
    expect((await b.exchange(await toCallback(b.jar, await password(b.jar, b.stop, other.userName, PASSWORD)))).amr).toEqual(['pwd']);
  });

  it('required: everyone is asked; the second-factor pages without a first factor are the 400 page, and a forged form the 403', async () => {
    await policy('required');
    const a = await authorize(rp);
    const early = await a.jar.fetch(`${a.stop.at}/mfa`);
    expect(early.status).toBe(400);
    const forged = await submit(a.jar, { ...a.stop, csrf: a.stop.csrf }, 'mfa/totp', { code: '123456' });
    expect(forged.status).toBe(400);
    const user = await newUser();
    const enrol = await password(a.jar, a.stop, user.userName, PASSWORD);
    expect(enrol.kind).toBe('enrol');
    expect((await submit(a.jar, { ...enrol, csrf: 'forged' }, 'mfa/enrol', { code: '123456' })).status).toBe(403);
    // The password alone is no sign-in.
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('required: a person who signs up enrols an authenticator right after verifying their email', async () => {
    await policy('required');
    expect((await manage('PUT', '/settings/sign-in', { signUpEnabled: true })).statusCode).toBe(200);
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const a = await authorize(rp);
    const verify = await submit(a.jar, a.stop, 'sign-up', { email, displayName: 'Grace', password: 'a brand new password' });
    const sent = /\b(\d{6})\b/.exec((await waitForMessage(t.app, email, 'sign_up_code')).text)![1]!;
    const enrol = await submit(a.jar, verify, 'verify', { signUp: inputValue(verify.body, 'signUp')!, email, code: sent });
    expect(enrol.kind, enrol.body).toBe('enrol');
  });
});

describe('codes', () => {
  it('refuses a replayed TOTP code with its own message (audited), then accepts the next one', async () => {
    await policy('required');
    const user = await enrolledUser();
    const now = code(user.secret);
    const a = await authorize(rp);
    await toCallback(a.jar, await submit(a.jar, await password(a.jar, a.stop, user.userName, PASSWORD), 'mfa/totp', { code: now }));

    const b = await authorize(rp, { ui_locales: 'de' });
    const asked = await password(b.jar, b.stop, user.userName, PASSWORD);
    const replayed = await submit(b.jar, asked, 'mfa/totp', { code: now });
    expect(replayed.status).toBe(401);
    expect(replayed.kind).toBe('mfa');
    expect(replayed.body).toContain('Dieser Code wurde bereits verwendet.');
    expect(replayed.body).toContain('aria-invalid="true"');
    const wrong = await submit(b.jar, replayed, 'mfa/totp', { code: 'abcdef' });
    expect(wrong.body).toContain('Dieser Code ist falsch oder abgelaufen.');
    expect((await eventsOf('user.mfa_failed')).map((e) => e.data.reason)).toEqual(['replayed', 'invalid']);
    const claims = await b.exchange(await toCallback(b.jar, await submit(b.jar, wrong, 'mfa/totp', { code: code(user.secret, 1) })));
    expect(claims.acr).toBe(ACR_MFA);
  });

  it('after 5 wrong codes the waiting password is dropped: the person starts again from the password', async () => {
    await policy('required');
    const user = await enrolledUser();
    const right = code(user.secret);
    const wrongCode = right === '000000' ? '111111' : '000000';
    const a = await authorize(rp);
    let stop = await password(a.jar, a.stop, user.userName, PASSWORD);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await submit(a.jar, stop, i % 2 ? 'mfa/recovery' : 'mfa/totp', i % 2 ? { recoveryCode: 'AAAA-BBBB-CCCC-DDDD' } : { code: wrongCode });
      statuses.push(answer.status);
      if (answer.status === 401) stop = answer;
      else expect(answer.body).toContain('<h1>Too many wrong codes</h1>');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect((await submit(a.jar, stop, 'mfa/totp', { code: right })).status).toBe(400);
    expect((await a.jar.fetch(`${a.stop.at}/mfa`)).status).toBe(400);
    const again = await password(a.jar, a.stop, user.userName, PASSWORD);
    expect(again.kind).toBe('mfa');
    await a.exchange(await toCallback(a.jar, await submit(a.jar, again, 'mfa/totp', { code: right })));
  });

  it('a recovery code signs in once; used again it is refused with its own message', async () => {
    await policy('required');
    const user = await enrolledUser();
    const [first] = user.recoveryCodes;
    const a = await authorize(rp);
    const asked = await password(a.jar, a.stop, user.userName, PASSWORD);
    const page = await follow(a.jar, await a.jar.fetch(`${a.stop.at}/mfa/recovery`), `${a.stop.at}/mfa/recovery`);
    expect(page.kind, page.body).toBe('recovery');
    expect(asked.body).toContain(`href="${new URL(a.stop.at).pathname}/mfa/recovery"`);
    const claims = await a.exchange(await toCallback(a.jar, await submit(a.jar, page, 'mfa/recovery', { recoveryCode: first!.toLowerCase() })));
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await eventsOf('user.recovery_code_used')).map((e) => e.data)).toEqual([{ userId: user.id, remaining: 9 }]);
    expect((await eventsOf('user.signed_in')).map((e) => e.data.secondFactor)).toEqual(['recovery_code']);

    const b = await authorize(rp);
    await password(b.jar, b.stop, user.userName, PASSWORD);
    const again = await follow(b.jar, await b.jar.fetch(`${b.stop.at}/mfa/recovery`), `${b.stop.at}/mfa/recovery`);
    const used = await submit(b.jar, again, 'mfa/recovery', { recoveryCode: first! });
    expect(used.status).toBe(401);
    expect(used.body).toContain('That recovery code was already used.');
    const bad = await submit(b.jar, used, 'mfa/recovery', { recoveryCode: 'AAAA-BBBB-CCCC-DDDD' });
    expect(bad.body).toContain('That recovery code is not right.');
  });
});

describe('remember this device', () => {
  it('sets an HttpOnly SameSite=Lax cookie on the issuer path; that browser then skips the code; a tampered cookie does not', async () => {
    await policy('required');
    await rememberFor(3600);
    const user = await enrolledUser();
    const a = await authorize(rp);
    const asked = await password(a.jar, a.stop, user.userName, PASSWORD);
    expect(asked.body).toContain('name="rememberDevice"');
    const done = await submit(a.jar, asked, 'mfa/totp', { code: code(user.secret), rememberDevice: 'yes' });
    await toCallback(a.jar, done);
    const line = a.jar.received.find((l) => l.startsWith(`iam_mfa_device_${user.id.replace(/-/g, '')}=`))!;
    expect(line).toMatch(/; Max-Age=3600; Path=\/v1\/oidc\/[0-9a-f-]+; HttpOnly; SameSite=Lax$/);
    expect(line).toContain(`Path=${new URL(env.issuer).pathname};`);
    const [name, value] = line.split(';')[0]!.split('=') as [string, string];

    const remembered = new CookieJar();
    remembered.cookies.set(name, value);
    const b = await authorize(rp, {}, remembered);
    const claims = await b.exchange(await toCallback(b.jar, await password(b.jar, b.stop, user.userName, PASSWORD)));
    expect(claims.amr).toEqual(['pwd']);
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.amr, e.data.secondFactor])).toEqual([
      [['pwd', 'otp', 'mfa'], 'totp'],
      [['pwd'], 'remember_device'],
    ]);

    const tampered = new CookieJar();
    tampered.cookies.set(name, `${value.slice(0, -2)}xx`);
    const c = await authorize(rp, {}, tampered);
    expect((await password(c.jar, c.stop, user.userName, PASSWORD)).kind).toBe('mfa');
    const garbled = new CookieJar();
    garbled.cookies.set(name, '%E0%A4%A');
    const d = await authorize(rp, {}, garbled);
    expect((await password(d.jar, d.stop, user.userName, PASSWORD)).kind).toBe('mfa');
    expect((await eventsOf('user.mfa_failed')).map((e) => e.data)).toEqual([
      expect.objectContaining({ userId: user.id, factor: 'remember_device', reason: 'invalid' }),
      expect.objectContaining({ userId: user.id, factor: 'remember_device', reason: 'invalid' }),
    ]);

    // Turned off in the session config: from the next sign-in the device is asked again, and no checkbox is offered.
    await rememberFor(null);
    const stillSet = new CookieJar();
    stillSet.cookies.set(name, value);
    const e = await authorize(rp, {}, stillSet);
    const again = await password(e.jar, e.stop, user.userName, PASSWORD);
    expect(again.kind, again.body).toBe('mfa');
    expect(again.body).not.toContain('name="rememberDevice"');
  });
});

describe('step-up', () => {
  it('acr_values=urn:iam:acr:mfa asks a signed-in session for the second factor again; the acr is in discovery', async () => {
    const discovery = (await (await fetch(`${env.issuer}/.well-known/openid-configuration`)).json()) as { acr_values_supported?: string[] };
    expect(discovery.acr_values_supported).toEqual([ACR_MFA]);
    const user = await enrolledUser();
    const a = await authorize(rp);
    await a.exchange(await toCallback(a.jar, await password(a.jar, a.stop, user.userName, PASSWORD)));
    // The same browser, without step-up: no page at all.
    const silent = await authorize(rp, {}, a.jar);
    expect(silent.stop.callback).toBeDefined();

    const b = await authorize(rp, { acr_values: ACR_MFA }, a.jar);
    const asked = await password(b.jar, b.stop, user.userName, PASSWORD);
    expect(asked.kind, asked.body).toBe('mfa');
    const claims = await b.exchange(await toCallback(b.jar, await submit(b.jar, asked, 'mfa/totp', { code: code(user.secret) })));
    expect(claims.acr).toBe(ACR_MFA);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    // Reached: the next request for it passes silently.
    const again = await authorize(rp, { acr_values: ACR_MFA, prompt: 'none' }, a.jar);
    expect(again.stop.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('step-up for a user without an authenticator enrols one, whatever the policy', async () => {
    const user = await newUser();
    const a = await authorize(rp, { acr_values: ACR_MFA });
    expect((await password(a.jar, a.stop, user.userName, PASSWORD)).kind).toBe('enrol');
  });

  it('max_age forcing a new login asks again for the second factor the session had, even on a remembered device', async () => {
    await policy('optional');
    await rememberFor(3600);
    const user = await enrolledUser();
    const a = await authorize(rp);
    const asked = await password(a.jar, a.stop, user.userName, PASSWORD);
    await a.exchange(await toCallback(a.jar, await submit(a.jar, asked, 'mfa/totp', { code: code(user.secret), rememberDevice: 'yes' })));
    const b = await authorize(rp, { max_age: '0' }, a.jar);
    const again = await password(b.jar, b.stop, user.userName, PASSWORD);
    expect(again.kind, again.body).toBe('mfa');
    const claims = await b.exchange(await toCallback(b.jar, await submit(b.jar, again, 'mfa/totp', { code: code(user.secret, 1) })));
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
  });
});
