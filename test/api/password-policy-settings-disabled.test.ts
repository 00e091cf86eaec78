// Password sign-in turned off by the environment's password policy (`passwordAuthEnabled: false`): the pages neither
// offer nor accept a password (no reset, no sign-up), and no password can be set through the directory API, a link
// or the account endpoint. Turned on again, everything works as before.
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, postForm, setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
const OFF_ERROR = {
  error: 'Password sign-in is turned off in this environment (…/settings/password-policy passwordAuthEnabled): no password can be set.',
  code: 'password.disabled',
  requestId: expect.any(String),
};

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' }, '127.0.0.1');
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const envUrl = (path: string) => `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`;
const passwordAuth = async (on: boolean) =>
  expect(
    (await t.app.inject({ method: 'PUT', url: envUrl('/settings/password-policy'), headers: bearer(token), payload: { passwordAuthEnabled: on } })).statusCode,
  ).toBe(200);
const api = (method: 'PUT' | 'POST', path: string, payload: object) => t.app.inject({ method, url: envUrl(path), headers: bearer(token), payload });
const linkPage = (url: string, password: string) =>
  t.app.inject({
    method: 'POST',
    url: new URL(url).pathname,
    payload: new URLSearchParams({ password, confirmation: password }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

async function interaction() {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const page = await (await jar.fetch(at)).text();
  return { jar, at, page, csrf: inputValue(page, 'csrf')! };
}

describe('passwordAuthEnabled: false', () => {
  it('the directory API answers 409 password.disabled; a link issued before opens a page that says so', async () => {
    const user = await directoryUser(t, env.environmentId);
    const link = (await api('POST', `/directory/users/${user.id}/password-links`, {})).json().url as string;
    await passwordAuth(false);

    const set = await api('PUT', `/directory/users/${user.id}/password`, { password: PASSWORD });
    expect(set.statusCode).toBe(409);
    expect(set.json()).toEqual(OFF_ERROR);
    const links = await api('POST', `/directory/users/${user.id}/password-links`, {});
    expect(links.statusCode).toBe(409);
    expect(links.json()).toEqual(OFF_ERROR);
    const page = await linkPage(link, PASSWORD);
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('Passwords are turned off');
    expect((await t.app.inject({ method: 'GET', url: new URL(link).pathname })).statusCode).toBe(409);
    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId });
    expect(events.filter((e) => e.type === 'user.password_set' || e.type === 'user.password_link_created')).toHaveLength(1); // the link before

    await passwordAuth(true);
    expect((await linkPage(link, PASSWORD)).statusCode).toBe(200);
  });

  it('the account endpoint answers 403 password.disabled', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    await passwordAuth(false);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/oidc/${env.environmentId}/account/password`,
      headers: bearer(tokens.access_token),
      payload: { currentPassword: PASSWORD, newPassword: `${PASSWORD}!` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(OFF_ERROR);
  });

  it('the pages offer no password, no reset and no sign-up, and refuse a posted password (password_disabled)', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    expect((await api('PUT', '/settings/sign-in', { signUpEnabled: true })).statusCode).toBe(200);
    expect((await interaction()).page).toContain('/sign-up"');
    await passwordAuth(false);

    const { jar, at, page, csrf } = await interaction();
    expect(page).not.toContain('/sign-up"');
    expect((await jar.fetch(`${at}/sign-up`)).status).toBe(400);
    const factors = await (await postForm(jar, `${at}/identifier`, { csrf, identifier: user.userName })).text();
    expect(factors).not.toContain('name="password"');
    expect(factors).not.toContain('/reset"');

    const posted = await postForm(jar, `${at}/login`, { csrf, identifier: user.userName, password: PASSWORD });
    expect(posted.status).toBe(403);
    expect(await posted.text()).toContain('Password sign-in is turned off. Choose another way to sign in.');
    const failed = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === 'user.sign_in_failed');
    expect(failed.map((e) => e.data)).toEqual([
      { userId: user.id, login: user.userName, clientId: env.clientId, reason: 'password_disabled', ip: expect.any(String) },
    ]);
    expect(await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.sign_in_failed', resourceId: user.id })).toHaveLength(1);

    const reset = await jar.fetch(`${at}/reset`);
    expect(reset.status).toBe(409);
    expect(await reset.text()).toContain('Passwords are turned off');
    expect((await postForm(jar, `${at}/reset`, { csrf, identifier: user.userName })).status).toBe(409);

    await passwordAuth(true);
    const again = await interaction();
    const offered = await (await postForm(again.jar, `${again.at}/identifier`, { csrf: again.csrf, identifier: user.userName })).text();
    expect(offered).toContain('name="password"');
    expect(offered).toContain('/reset"');
  });

  it('sign-up without a password where email code sign-in is on: the emailed code verifies and signs in', async () => {
    expect((await api('PUT', '/settings/sign-in', { signUpEnabled: true, emailCodeEnabled: true })).statusCode).toBe(200);
    await passwordAuth(false);
    const { jar, at, page, csrf } = await interaction();
    expect(page).toContain('/sign-up"');
    const form = await (await jar.fetch(`${at}/sign-up`)).text();
    expect(form).toContain('name="email"');
    expect(form).not.toContain('name="password"');

    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const started = await postForm(jar, `${at}/sign-up`, { csrf, email, password: 'x' }); // a password sent anyway is ignored
    expect(started.status).toBe(200);
    const signUp = inputValue(await started.text(), 'signUp')!;
    const code = /\b(\d{6})\b/.exec((await waitForMessage(t.app, email, 'sign_up_code')).text)![1]!;
    const verified = await postForm(jar, `${at}/verify`, { csrf, signUp, email, code });
    expect(verified.status).toBe(303);

    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId });
    const userId = events.find((e) => e.type === 'user.signed_up')!.data.userId as string;
    expect(events.filter((e) => e.type === 'user.signed_in').map((e) => e.data.amr)).toEqual([['otp', 'email']]);
    const stored = await t.pool.maybeOne(sql.unsafe`SELECT 1 FROM user_passwords WHERE user_id = ${userId}`);
    expect(stored).toBeNull();
    expect(messagesTo(t.app, email)).toHaveLength(1);
  });

  it('a sign-up without a password replaces an unverified sign-up of the same email, and its password goes', async () => {
    expect((await api('PUT', '/settings/sign-in', { signUpEnabled: true, emailCodeEnabled: true })).statusCode).toBe(200);
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const before = await interaction();
    expect((await postForm(before.jar, `${before.at}/sign-up`, { csrf: before.csrf, email, password: PASSWORD })).status).toBe(200);
    const userId = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).find((e) => e.type === 'directory.user.created')!.subject!.id!;
    const passwordOf = () => t.pool.maybeOne(sql.unsafe`SELECT 1 FROM user_passwords WHERE user_id = ${userId}`);
    expect(await passwordOf()).not.toBeNull();

    await passwordAuth(false);
    const { jar, at, csrf } = await interaction();
    expect((await postForm(jar, `${at}/sign-up`, { csrf, email })).status).toBe(200);
    expect(await passwordOf()).toBeNull();
  });
});
