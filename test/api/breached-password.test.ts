// The breached password policy through the real pages and APIs: off costs nothing and refuses nothing; `block`
// refuses a listed or too-guessable password at sign-up (checkOnSignup) and at the directory API, the password link
// and the account endpoint (checkOnChange) with the code `breached`, localised, and records `protection.blocked`;
// `warn` lets it through with a notice (the next page, or the `Password-Warning` header) and `protection.warned`.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { messagesTo } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, setPassword } from '../helpers/sign-in.ts';

const GOOD = 'correct horse battery';
const LISTED = 'password123';
const GUESSABLE = 'dragon2024';
const REFUSED_EN = 'This password is too common or too easy to guess: passwords like it appear in data breaches. Choose another one.';
const REFUSED_FR =
  'Ce mot de passe est trop courant ou trop facile à deviner : des mots de passe comme celui-ci figurent dans des fuites de données. Choisissez-en un autre.';
const NOTICE_EN = 'Your new password is too common or too easy to guess: passwords like it appear in data breaches. Consider changing it soon.';
const RULE = 'is too common or too easy to guess (passwords like it appear in data breaches)';

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
  const res = await t.app.inject({ method: 'PUT', url: `${settings()}/sign-in`, headers: bearer(token), payload: { signUpEnabled: true } });
  expect(res.statusCode).toBe(200);
});
afterAll(() => t.close());

const settings = () => `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings`;
const policy = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PUT', url: `${settings()}/breached-password-policy`, headers: bearer(token), payload: body });
  expect(res.statusCode).toBe(200);
};
const protectionEvents = async () =>
  (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type.startsWith('protection.') || e.type.startsWith('threat.'));

async function signUp(password: string, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const csrf = inputValue(await (await jar.fetch(at, { headers })).text(), 'csrf')!;
  const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const res = await jar.fetch(`${at}/sign-up`, {
    method: 'POST',
    body: new URLSearchParams({ csrf, email, displayName: 'Ada', password }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return { email, status: res.status, body: await res.text() };
}

const directoryPut = async (password: string) => {
  const user = await directoryUser(t, env.environmentId);
  const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password`;
  return { user, res: await t.app.inject({ method: 'PUT', url, headers: { ...bearer(token), 'user-agent': 'ops-script/1' }, payload: { password } }) };
};

describe('breached password policy', () => {
  it('off (never saved, or enabled: false): a listed password is accepted everywhere and nothing is recorded', async () => {
    expect((await signUp(LISTED)).status).toBe(200);
    await policy({ enabled: false });
    expect((await signUp(LISTED)).status).toBe(200);
    expect((await directoryPut(LISTED)).res.statusCode).toBe(204);
    expect(await protectionEvents()).toEqual([]);
  });

  it('block at sign-up: a listed and a too-guessable password are refused on the page, localised; an audit entry and protection.blocked, no threat', async () => {
    await policy({ enabled: true, mode: 'block' });
    const listed = await signUp(LISTED);
    expect(listed.status).toBe(400);
    expect(listed.body).toContain(REFUSED_EN);
    expect(listed.body).toMatch(/id="password"[^>]*aria-invalid="true"/);
    expect(messagesTo(t.app, listed.email)).toEqual([]);
    const french = await signUp(GUESSABLE, { 'accept-language': 'fr' });
    expect(french.status).toBe(400);
    expect(french.body).toContain(REFUSED_FR);
    const good = await signUp(GOOD);
    expect(good.status).toBe(200);
    expect(good.body).not.toContain('class="notice"');

    const events = await protectionEvents();
    expect(events.map((e) => [e.type, e.data.reason])).toEqual([
      ['protection.blocked', 'listed'],
      ['protection.blocked', 'guessable'],
    ]);
    expect(events[0]!.data).toEqual({
      policy: 'breached_password',
      flow: 'sign_up',
      reason: 'listed',
      userId: null,
      login: listed.email,
      ip: expect.any(String),
      userAgent: 'node',
      threatId: null,
      purpose: 'sign_up',
    });
    const audit = (await auditEntries(t, { tenantId: env.tenantId })).filter((a) => a.action === 'protection.block' && a.environmentId === env.environmentId);
    expect(audit.map((a) => a.changes?.after)).toEqual([
      { policy: 'breached_password', flow: 'sign_up', reason: 'listed' },
      { policy: 'breached_password', flow: 'sign_up', reason: 'guessable' },
    ]);
  });

  it('names breached with the other failing rules, last', async () => {
    await policy({ enabled: true });
    const res = await t.app.inject({ method: 'PUT', url: `${settings()}/password-policy`, headers: bearer(token), payload: { requireSymbol: true } });
    expect(res.statusCode).toBe(200);
    const { res: refused } = await directoryPut(LISTED);
    expect(refused.json().details).toEqual([
      { path: 'body.password', message: 'must contain a symbol' },
      { path: 'body.password', message: RULE },
    ]);
  });

  it('warn at sign-up: the account is created, the code page shows the notice; protection.warned', async () => {
    await policy({ enabled: true, mode: 'warn' });
    const warned = await signUp(LISTED);
    expect(warned.status).toBe(200);
    expect(warned.body).toContain(`<p id="notice" class="notice" role="status">${NOTICE_EN}</p>`);
    expect(messagesTo(t.app, warned.email)).toHaveLength(1);
    expect((await protectionEvents()).map((e) => [e.type, e.data.policy, e.data.flow, e.data.reason])).toEqual([
      ['protection.warned', 'breached_password', 'sign_up', 'listed'],
    ]);
  });

  it('checkOnSignup: false leaves sign-up alone; checkOnChange: false the other paths', async () => {
    await policy({ enabled: true, checkOnSignup: false });
    expect((await signUp(LISTED)).status).toBe(200);
    expect((await directoryPut(LISTED)).res.statusCode).toBe(400);
    await policy({ enabled: true, checkOnChange: false });
    expect((await signUp(LISTED)).status).toBe(400);
    expect((await directoryPut(LISTED)).res.statusCode).toBe(204);
  });

  it('directory API: block is 400 naming body.password; warn is 204 with Password-Warning: breached', async () => {
    await policy({ enabled: true, mode: 'block' });
    const { user, res } = await directoryPut(LISTED);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: `Invalid request: body.password ${RULE}.`,
      code: 'request.invalid',
      requestId: expect.any(String),
      details: [{ path: 'body.password', message: RULE }],
    });
    const ok = await directoryPut(GOOD);
    expect(ok.res.statusCode).toBe(204);
    expect(ok.res.headers['password-warning']).toBeUndefined();

    await policy({ enabled: true, mode: 'warn' });
    const warned = await directoryPut(LISTED);
    expect(warned.res.statusCode).toBe(204);
    expect(warned.res.headers['password-warning']).toBe('breached');
    const events = await protectionEvents();
    expect(events.map((e) => [e.type, e.data.flow, e.data.userId, e.data.purpose, e.data.userAgent])).toEqual([
      ['protection.blocked', 'password_change', user.id, 'admin_set', 'ops-script/1'],
      ['protection.warned', 'password_change', warned.user.id, 'admin_set', 'ops-script/1'],
    ]);
  });

  it('password link: block refuses on the page; warn sets it and the done page shows the notice', async () => {
    await policy({ enabled: true, mode: 'block' });
    const user = await directoryUser(t, env.environmentId);
    const links = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password-links`;
    const linkOf = async () => (await t.app.inject({ method: 'POST', url: links, headers: bearer(token), payload: {} })).json().url as string;
    const post = (url: string, password: string) =>
      t.app.inject({
        method: 'POST',
        url: new URL(url).pathname,
        payload: new URLSearchParams({ password, confirmation: password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const link = await linkOf();
    const refused = await post(link, GUESSABLE);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(REFUSED_EN);

    await policy({ enabled: true, mode: 'warn' });
    const done = await post(link, GUESSABLE);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain(NOTICE_EN);
    expect(done.body).toContain('Your password is set.');
    expect((await protectionEvents()).map((e) => [e.type, e.data.flow, e.data.userId])).toEqual([
      ['protection.blocked', 'password_reset', user.id],
      ['protection.warned', 'password_reset', user.id],
    ]);
  });

  it('account endpoint: block is 400 password.breached naming body.newPassword; warn is 204 with Password-Warning', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, GOOD);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: GOOD });
    await policy({ enabled: true, mode: 'block' });
    const change = (newPassword: string, currentPassword = GOOD) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/oidc/${env.environmentId}/account/password`,
        headers: bearer(tokens.access_token),
        payload: { currentPassword, newPassword },
      });
    const refused = await change(LISTED);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: `Invalid request: body.newPassword ${RULE}.`,
      code: 'password.breached',
      requestId: expect.any(String),
      details: [{ path: 'body.newPassword', message: RULE }],
    });
    await policy({ enabled: true, mode: 'warn' });
    const warned = await change(LISTED);
    expect(warned.statusCode).toBe(204);
    expect(warned.headers['password-warning']).toBe('breached');
    expect((await protectionEvents()).map((e) => [e.type, e.data.flow, e.data.userId, e.data.purpose])).toEqual([
      ['protection.blocked', 'password_change', user.id, 'change'],
      ['protection.warned', 'password_change', user.id, 'change'],
    ]);
  });
});
