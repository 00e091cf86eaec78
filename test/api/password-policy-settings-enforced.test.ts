// The environment's configured password policy is what every call site asks (the app is built with it): a saved
// policy refuses with every failing rule named (the API's 400 one detail per rule, the pages a localised list), and
// without a row the service's default rules still apply.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rulesFailed } from '../../api/passwords/environment-policy.ts';
import { DEFAULT_PASSWORD_POLICY } from '../../db/password-policy/queries.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, postForm, setPassword } from '../helpers/sign-in.ts';

const STRONG = 'Correct-horse-9';
const WEAK = 'horse'; // lowercase only, 5 code points
const RULES = ['must be at least 12 characters long', 'must contain an uppercase letter', 'must contain a number', 'must contain a symbol'];
const RULES_EN = [
  'The password must be at least 12 characters long.',
  'The password must contain an uppercase letter.',
  'The password must contain a digit.',
  'The password must contain a symbol (a character that is neither a letter nor a digit).',
];
const POLICY = { minLength: 12, requireLowercase: true, requireUppercase: true, requireNumber: true, requireSymbol: true };

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

const settings = (path: string, payload: object) =>
  t.app.inject({ method: 'PUT', url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/${path}`, headers: bearer(token), payload });
const savePolicy = async () => expect((await settings('password-policy', POLICY)).statusCode).toBe(200);
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const linkPage = (url: string, form: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: new URL(url).pathname,
    payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const directoryPut = (userId: string, password: string) =>
  t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${userId}/password`,
    headers: bearer(token),
    payload: { password },
  });
/** The page lists each rule, in order. */
const listed = (body: string, rules: string[]) =>
  expect(body.replace(/>\s+</g, '><')).toContain(
    `<div id="error" class="error" role="alert" tabindex="-1" autofocus><ul>${rules.map((r) => `<li>${r}</li>`).join('')}</ul></div>`,
  );

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

describe('the environment’s password policy at every call site', () => {
  it('directory PUT …/password: 400 naming body.password once per failing rule; the default without a row', async () => {
    const user = await directoryUser(t, env.environmentId);
    expect((await directoryPut(user.id, 'horsehorse')).statusCode).toBe(204); // the default: 8 characters, no class
    const short = await directoryPut(user.id, WEAK);
    expect(short.json().details).toEqual([{ path: 'body.password', message: 'must be at least 8 characters long' }]);

    await savePolicy();
    const res = await directoryPut(user.id, WEAK);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error:
        'Invalid request: body.password must be at least 12 characters long, must contain an uppercase letter, must contain a number and must contain a symbol.',
      code: 'request.invalid',
      requestId: expect.any(String),
      details: RULES.map((message) => ({ path: 'body.password', message })),
    });
    expect((await directoryPut(user.id, 'horsehorsehorse')).json().details).toHaveLength(3);
    expect((await directoryPut(user.id, STRONG)).statusCode).toBe(204);
  });

  it('the account endpoint: 400 password.too_short listing every rule under body.newPassword', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, STRONG);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: STRONG });
    await savePolicy();
    const change = (newPassword: string) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/oidc/${env.environmentId}/account/password`,
        headers: bearer(tokens.access_token),
        payload: { currentPassword: STRONG, newPassword },
      });
    const res = await change(WEAK);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'password.too_short', details: RULES.map((message) => ({ path: 'body.newPassword', message })) });
    const symbolOnly = await change('Correct-horse-battery');
    expect(symbolOnly.json()).toMatchObject({ code: 'password.missing_number', details: [{ path: 'body.newPassword', message: 'must contain a number' }] });
    expect((await change('Correct-horse-10')).statusCode).toBe(204);
  });

  it('the password link page and the reset link: 400 listing every rule, localised; the link still works', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, STRONG);
    await savePolicy();
    const { jar, at, csrf } = await interaction();
    expect((await postForm(jar, `${at}/reset`, { csrf, identifier: user.userName })).status).toBe(200);
    const message = await waitForMessage(t.app, user.userName, 'password_reset');
    const link = new RegExp(`${env.issuer}/password/[A-Za-z0-9_-]{43}`).exec(message.text)![0];
    const refused = await linkPage(link, { password: WEAK, confirmation: WEAK });
    expect(refused.statusCode).toBe(400);
    listed(refused.body, RULES_EN);
    const german = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: new URLSearchParams({ password: 'HORSEHORSEHORSE', confirmation: 'HORSEHORSEHORSE' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' },
    });
    listed(german.body, [
      'Das Passwort muss einen Kleinbuchstaben enthalten.',
      'Das Passwort muss eine Ziffer enthalten.',
      'Das Passwort muss ein Sonderzeichen enthalten (ein Zeichen, das weder Buchstabe noch Ziffer ist).',
    ]);
    expect((await linkPage(link, { password: STRONG + 'x', confirmation: STRONG + 'x' })).statusCode).toBe(200);
  });

  it('sign-up: 400 listing every rule at the password field; no account, no code sent', async () => {
    expect((await settings('sign-in', { signUpEnabled: true })).statusCode).toBe(200);
    await savePolicy();
    const { jar, at, csrf } = await interaction();
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await postForm(jar, `${at}/sign-up`, { csrf, email, password: WEAK });
    expect(res.status).toBe(400);
    const body = await res.text();
    listed(body, RULES_EN);
    expect(body).toMatch(/id="password"[^>]*aria-invalid="true"/);
    expect(messagesTo(t.app, email)).toEqual([]);
    expect(await eventsOf('user.created')).toEqual([]);
  });
});

describe('the rules', () => {
  const all = { ...DEFAULT_PASSWORD_POLICY, requireLowercase: true, requireUppercase: true, requireNumber: true, requireSymbol: true };
  const codes = (password: string, s = all) => rulesFailed(s, password).map((r) => r.code);

  it('tells character classes apart by Unicode category, and keeps the default floor', () => {
    expect(codes('école ÉCOLE ٣ €')).toEqual([]); // Ll, Lu, an Arabic-Indic digit (Nd), a currency sign
    expect(codes('ÉCOLEÉCOLE٣€')).toEqual(['missing_lowercase']);
    expect(codes('écoleécole٣€')).toEqual(['missing_uppercase']);
    expect(codes('écoleÉCOLE½€')).toEqual(['missing_number']); // ½ is a number (No) but not a decimal digit: not a symbol either
    expect(codes('école ÉCOLE 3')).toEqual(['missing_symbol']); // whitespace is not a symbol
    expect(codes('        ', DEFAULT_PASSWORD_POLICY)).toEqual(['whitespace_only']);
    expect(codes('a'.repeat(257), DEFAULT_PASSWORD_POLICY)).toEqual(['too_long']);
    expect(rulesFailed({ ...DEFAULT_PASSWORD_POLICY, minLength: 4 }, 'abcdefg')).toEqual([
      { code: 'too_short', message: 'must be at least 8 characters long', limit: 8 },
    ]);
  });
});
