// The password policy is a port: the app is built with one policy (the default: 8–256 code points, not only
// whitespace), and every place that sets a password asks it. A custom policy given to the test app refuses a
// password at each of them (directory PUT, the password link page, the reset link page, sign-up, the account
// endpoint), with the purpose and user it was asked for; pages show the refusal's message per code, localised.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultPasswordPolicy, type PasswordCheck, type PasswordPolicy } from '../../api/passwords/policy.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, postForm, setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
const BREACHED = 'pwned horse battery';
const BREACHED_EN = 'This password is too common or too easy to guess: passwords like it appear in data breaches. Choose another one.';
const BREACHED_DE = 'Dieses Passwort ist zu verbreitet oder zu leicht zu erraten: Passwörter wie dieses tauchen in Datenlecks auf. Wählen Sie ein anderes.';

/** Refuses any password containing "pwned" as breached; remembers what it was asked. */
const asked: { scope: { tenantId: string; environmentId: string }; password: string; context: PasswordCheck }[] = [];
const breachedPolicy: PasswordPolicy = {
  check: async (scope, password, context) => {
    asked.push({ scope, password, context: { ...context, origin: undefined } }); // the request's origin: see breached-password.test.ts
    return { refusal: password.includes('pwned') ? { code: 'breached', message: 'has appeared in a data breach' } : null };
  },
};

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' }, '127.0.0.1', { passwordPolicy: breachedPolicy });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
  asked.length = 0;
});
afterAll(() => t.close());

const scope = () => ({ tenantId: env.tenantId, environmentId: env.environmentId });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const linkPage = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: new URL(url).pathname,
    payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

/** The identifier page of a fresh authorization request. */
async function interaction() {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
  return { jar, at, csrf };
}

describe('a custom password policy is asked wherever a password is set', () => {
  it('directory PUT …/password: 400 naming body.password with the refusal’s message; nothing set', async () => {
    const user = await directoryUser(t, env.environmentId);
    const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password`;
    const res = await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { password: BREACHED } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid request: body.password has appeared in a data breach.',
      code: 'request.invalid',
      requestId: expect.any(String),
      details: [{ path: 'body.password', message: 'has appeared in a data breach' }],
    });
    expect(await eventsOf('user.password_set')).toEqual([]);
    expect(asked).toEqual([
      { scope: scope(), password: BREACHED, context: { purpose: 'admin_set', userId: user.id, userName: user.userName, email: user.userName } },
    ]);
    expect((await t.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { password: PASSWORD } })).statusCode).toBe(204);
  });

  it('the password link page: 400 with the localised message of the refusal’s code; the link still works', async () => {
    const user = await directoryUser(t, env.environmentId);
    const created = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password-links`,
      headers: bearer(token),
      payload: {},
    });
    const link = created.json().url as string;
    const refused = await linkPage(link, { password: BREACHED, confirmation: BREACHED });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(BREACHED_EN);
    const german = await linkPage(link, { password: BREACHED, confirmation: BREACHED }, { 'accept-language': 'de' });
    expect(german.statusCode).toBe(400);
    expect(german.body).toContain(BREACHED_DE);
    expect(asked[0]).toEqual({
      scope: scope(),
      password: BREACHED,
      context: { purpose: 'reset', userId: user.id, userName: user.userName, email: user.userName },
    });
    expect((await linkPage(link, { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(200);
  });

  it('the reset link page (forgot my password): 400 with the refusal’s message', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { jar, at, csrf } = await interaction();
    expect((await postForm(jar, `${at}/reset`, { csrf, identifier: user.userName })).status).toBe(200);
    const message = await waitForMessage(t.app, user.userName, 'password_reset');
    const link = new RegExp(`${env.issuer}/password/[A-Za-z0-9_-]{43}`).exec(message.text)![0];
    asked.length = 0;
    const refused = await linkPage(link, { password: BREACHED, confirmation: BREACHED });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(BREACHED_EN);
    expect(asked.map((a) => a.context)).toEqual([{ purpose: 'reset', userId: user.id, userName: user.userName, email: user.userName }]);
    expect(await eventsOf('user.password_set')).toHaveLength(1); // the administrator's, not the link's
  });

  it('sign-up: 400 with the refusal’s message at the password field; no account, no code sent', async () => {
    const enabled = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
      headers: bearer(token),
      payload: { signUpEnabled: true },
    });
    expect(enabled.statusCode).toBe(200);
    const { jar, at, csrf } = await interaction();
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await postForm(jar, `${at}/sign-up`, { csrf, email, password: BREACHED });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain(BREACHED_EN);
    expect(body).toMatch(/id="password"[^>]*aria-invalid="true"/);
    expect(asked.map((a) => [a.scope, a.context])).toEqual([[scope(), { purpose: 'sign_up', userName: email, email }]]);
    expect(messagesTo(t.app, email)).toEqual([]);
    expect(await eventsOf('user.created')).toEqual([]);
  });

  it('the account endpoint: 400 password.breached naming body.newPassword', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    asked.length = 0;
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/oidc/${env.environmentId}/account/password`,
      headers: bearer(tokens.access_token),
      payload: { currentPassword: PASSWORD, newPassword: BREACHED },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid request: body.newPassword has appeared in a data breach.',
      code: 'password.breached',
      requestId: expect.any(String),
      details: [{ path: 'body.newPassword', message: 'has appeared in a data breach' }],
    });
    expect(asked).toEqual([
      { scope: scope(), password: BREACHED, context: { purpose: 'change', userId: user.id, userName: user.userName, email: user.userName } },
    ]);
  });
});

describe('the default password policy', () => {
  const check = async (password: string) =>
    (await defaultPasswordPolicy.check({ tenantId: 't', environmentId: 'e' }, password, { purpose: 'admin_set' })).refusal;

  it('refuses passwords outside 8–256 code points and passwords of whitespace only, with a stable code', async () => {
    expect(await check('short')).toEqual({ code: 'too_short', message: 'must be at least 8 characters long', limit: 8 });
    expect(await check('😀😀😀😀😀😀😀')).toEqual({ code: 'too_short', message: 'must be at least 8 characters long', limit: 8 }); // 7 code points
    expect(await check('😀😀😀😀😀😀😀😀')).toBeNull();
    expect(await check('a'.repeat(256))).toBeNull();
    expect(await check('a'.repeat(257))).toEqual({ code: 'too_long', message: 'must be at most 256 characters long', limit: 256 });
    expect(await check(' \t\n        ')).toEqual({ code: 'whitespace_only', message: 'must not be only whitespace' });
  });
});
