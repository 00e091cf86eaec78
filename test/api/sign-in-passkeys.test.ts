// Passkeys on the sign-in pages over HTTP, with a software authenticator as the browser's: the offer (the same for
// every identifier, usable without script only as a note), the script asset, a passkey sign-in to tokens with amr
// hwk+user, each refusal answered in the page's locale and recorded, and the optional "create a passkey" step after a
// password sign-in.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPasskeyCeremonies, type PasskeyCeremonies } from '../../api/passkeys/index.ts';
import { WEBAUTHN_FILE } from '../../api/oidc/pages/passkey-script.ts';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, pageKind, postForm, setPassword } from '../helpers/sign-in.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let token: string;
let ceremonies: PasskeyCeremonies;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({}, 'localhost');
  token = await t.token();
  ceremonies = createPasskeyCeremonies(t.pool, t.config.publicBaseUrl);
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

/** The answer of an options route: the challenge's id and the options of `navigator.credentials[kind]`. */
type Started<K extends 'get' | 'create'> = { challengeId: string; options: Parameters<SoftAuthenticator[K]>[0] };
const passkeyEnv = () => ({ environmentId: env.environmentId, tenantId: env.tenantId });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const postJson = (jar: CookieJar, url: string, body: unknown) =>
  jar.fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** An authorization request opened on the identifier page: its URL, the cookie jar, the CSRF token, the PKCE verifier. */
async function startSignIn(parameters: Record<string, string> = {}) {
  const jar = new CookieJar();
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...parameters,
  });
  const authorize = await jar.fetch(url);
  const at = new URL(authorize.headers.get('location')!, url).href;
  const page = await jar.fetch(at);
  const body = await page.text();
  return { at, jar, page, body, csrf: inputValue(body, 'csrf')!, verifier };
}

/** A directory user with a password and a passkey on a fresh software authenticator. */
async function userWithPasskey() {
  const user = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
  const authenticator = new SoftAuthenticator({ origin: t.baseUrl });
  const { challengeId, options } = await ceremonies.registrationOptions(passkeyEnv(), user.id);
  const registered = await ceremonies.verifyRegistration(passkeyEnv(), user.id, challengeId, authenticator.create(options));
  if (!registered.ok) throw new Error(registered.reason);
  return { user, authenticator, passkey: registered.passkey };
}

/** Follows redirects from `location` (relative to `at`) through the consent page (allowed) to the client's callback. */
async function toCallback(jar: CookieJar, at: string, location: string) {
  let url = new URL(location, at);
  for (let hops = 0; hops < 10; hops++) {
    if (!url.pathname.startsWith('/v1/oidc/')) return url;
    const res = await jar.fetch(url);
    const next = res.headers.get('location');
    if (next) {
      url = new URL(next, url);
      continue;
    }
    const body = await res.text();
    expect(pageKind(body), body).toBe('consent');
    const confirmed = await postForm(jar, `${url.href}/confirm`, { csrf: inputValue(body, 'csrf')! });
    url = new URL(confirmed.headers.get('location')!, url);
  }
  throw new Error('too many redirects');
}

describe('the passkey offer', () => {
  it('offers conditional UI on the identifier page and "Sign in with a passkey" to known and unknown identifiers alike, with the script by nonce', async () => {
    const { user } = await userWithPasskey();
    const first = await startSignIn();
    expect(first.body).toContain('autocomplete="username webauthn"');
    expect(first.body).toContain(`data-passkey="conditional" data-options="${new URL(first.at).pathname}/passkey/options"`);
    const answers = [];
    for (const identifier of [user.userName, 'nobody@example.com']) {
      const { at, jar, csrf } = await startSignIn();
      const res = await postForm(jar, `${at}/identifier`, { csrf, identifier });
      const body = await res.text();
      const csp = res.headers.get('content-security-policy')!;
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      expect(csp).toContain("connect-src 'self'");
      expect(body).toContain(`<script nonce="${nonce}" src="/v1/oidc/${env.environmentId}/assets/${WEBAUTHN_FILE}" defer></script>`);
      expect(body).toContain('<button type="button" data-passkey-start hidden>Sign in with a passkey</button>');
      expect(body).toContain('<p data-nojs>Signing in with a passkey needs JavaScript. Turn it on, or use your password.</p>');
      expect(body).toContain(`<a href="${new URL(at).pathname}/reset">Lost your passkey? Reset your password</a>`);
      const same = body
        .replaceAll(identifier, 'X')
        .replaceAll(new URL(at).pathname, 'AT')
        .replaceAll(csrf, 'CSRF')
        .replace(/nonce-[^']+'|nonce="[^"]+"/g, 'NONCE')
        .replace(/name="formStamp" value="[^"]+"/, 'STAMP'); // the render time (bot detection's form stamp)
      answers.push({ status: res.status, same });
    }
    expect(answers[0]!.status).toBe(200);
    expect(answers[1]).toEqual(answers[0]);
  });

  it('serves the script under its hash for a year, and 404 for another name', async () => {
    const res = await fetch(`${env.issuer}/assets/${WEBAUTHN_FILE}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const script = await res.text();
    expect(script).toContain('navigator.credentials.get');
    // It parses as JavaScript (compiled, not run).
    expect(() => new Function(script)).not.toThrow();
    const other = await fetch(`${env.issuer}/assets/webauthn.js`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'asset.not_found' });
  });
});

describe('signing in with a passkey', () => {
  it('verifies the assertion, records user.signed_in with amr hwk+user, and continues to the client with tokens', async () => {
    const { user, authenticator, passkey } = await userWithPasskey();
    const { at, jar, csrf, verifier } = await startSignIn();
    const started = await postJson(jar, `${at}/passkey/options`, { csrf });
    expect(started.status).toBe(200);
    const { challengeId, options } = (await started.json()) as Started<'get'>;
    expect(options).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'preferred' });
    const verified = await postJson(jar, `${at}/passkey/verify`, { csrf, challengeId, response: authenticator.get(options) });
    expect(verified.status).toBe(200);
    const { location } = (await verified.json()) as { location: string };

    const callback = await toCallback(jar, at, location);
    const tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['hwk', 'user'] });
    const [event] = await eventsOf('user.signed_in');
    expect(event).toMatchObject({
      actor: { type: 'user', id: user.id },
      data: { userId: user.id, clientId: env.clientId, amr: ['hwk', 'user'], remember: false, passkeyId: passkey.id },
    });
    const [audit] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.signed_in', resourceId: user.id });
    expect(audit).toMatchObject({ actor: { type: 'user', id: user.id } });
  });

  it('refuses another challenge, another origin and an unknown credential in the page’s locale, recorded, nothing signed in', async () => {
    const { authenticator } = await userWithPasskey();
    const stranger = new SoftAuthenticator({ origin: t.baseUrl });
    const { at, jar, csrf } = await startSignIn({ ui_locales: 'de' });
    const options = async () => (await (await postJson(jar, `${at}/passkey/options`, { csrf })).json()) as Started<'get'>;
    // A credential of this RP that was never registered here.
    const unregistered = await ceremonies.registrationOptions(passkeyEnv(), (await directoryUser(t, env.environmentId)).id);
    stranger.create(unregistered.options);

    const first = await options();
    const second = await options();
    const cases = [
      { response: authenticator.get(first.options), challengeId: second.challengeId, status: 400, code: 'passkey.challenge_mismatch' },
      {
        response: authenticator.get(second.options, { origin: 'https://evil.example' }),
        challengeId: second.challengeId,
        status: 400,
        code: 'passkey.expired',
      },
    ];
    const third = await options();
    cases.push({
      response: authenticator.get(third.options, { origin: 'https://evil.example' }),
      challengeId: third.challengeId,
      status: 400,
      code: 'passkey.origin_mismatch',
    });
    const fourth = await options();
    cases.push({ response: stranger.get(fourth.options), challengeId: fourth.challengeId, status: 401, code: 'passkey.unknown_credential' });

    const wrongChallenge = 'Diese Passkey-Antwort gehört nicht zu dieser Anmeldeseite. Versuchen Sie es erneut.';
    const unknown = 'Dieser Passkey ist hier für kein Konto registriert. Verwenden Sie einen anderen Passkey oder Ihr Passwort.';
    const messages: Record<string, string> = { 'passkey.unknown_credential': unknown };
    for (const c of cases) {
      const res = await postJson(jar, `${at}/passkey/verify`, { csrf, challengeId: c.challengeId, response: c.response });
      expect(res.status, c.code).toBe(c.status);
      expect(await res.json()).toEqual({ error: messages[c.code] ?? wrongChallenge, code: c.code, requestId: expect.any(String) });
    }
    const refused = await eventsOf('user.passkey_sign_in_failed');
    expect(refused.map((e) => e.data.reason)).toEqual(['challenge_mismatch', 'expired', 'origin_mismatch', 'unknown_credential']);
    expect(await eventsOf('user.signed_in')).toEqual([]);
    // The interaction still waits for a sign-in: the identifier page.
    expect(pageKind(await (await jar.fetch(at)).text())).toBe('login');
  });

  it('answers 403 without the CSRF token and 400 for an unknown interaction, as JSON', async () => {
    const { at, jar } = await startSignIn();
    const forged = await postJson(jar, `${at}/passkey/options`, { csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'csrf.invalid' });
    const gone = await postJson(new CookieJar(), `${at}/passkey/verify`, { csrf: 'x' });
    expect(gone.status).toBe(400);
    expect(await gone.json()).toMatchObject({ code: 'interaction.expired' });
  });
});

describe('creating a passkey after a sign-in', () => {
  async function passwordSignIn(userName: string) {
    const started = await startSignIn();
    const res = await postForm(started.jar, `${started.at}/login`, { csrf: started.csrf, identifier: userName, password: PASSWORD });
    return { ...started, res };
  }

  it('offers it after a password sign-in of a user without a passkey; "Not now" continues the sign-in', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { at, jar, res, verifier } = await passwordSignIn(user.userName);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${new URL(at).pathname}/passkey/create`);
    const page = await jar.fetch(`${at}/passkey/create`);
    const body = await page.text();
    expect(page.status).toBe(200);
    expect(body).toContain('<title>Create a passkey for faster sign-in</title>');
    expect(body).toContain('<button class="primary" type="button" data-passkey-start hidden>Create a passkey</button>');
    expect(body).toContain('<p data-nojs>Creating a passkey needs JavaScript.</p>');
    const skipped = await postForm(jar, `${at}/passkey/skip`, { csrf: inputValue(body, 'csrf')! });
    expect(skipped.status).toBe(303);
    const callback = await toCallback(jar, at, skipped.headers.get('location')!);
    const tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd'] });
  });

  it('registers the passkey, continues the sign-in, and is not offered again', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { at, jar, csrf, verifier } = await passwordSignIn(user.userName);
    const authenticator = new SoftAuthenticator({ origin: t.baseUrl });
    const started = await postJson(jar, `${at}/passkey/create/options`, { csrf });
    expect(started.status).toBe(200);
    const { challengeId, options } = (await started.json()) as Started<'create'>;
    expect(options).toMatchObject({ rp: { id: 'localhost' }, user: { name: user.userName } });

    // A response for another origin is refused with the page's message, and nothing is stored.
    const wrong = await postJson(jar, `${at}/passkey/create/verify`, {
      csrf,
      challengeId,
      response: authenticator.create(options, { origin: 'https://evil.example' }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      code: 'passkey.origin_mismatch',
      error: 'The passkey could not be created. Try again, or continue without one.',
    });

    const again = (await (await postJson(jar, `${at}/passkey/create/options`, { csrf })).json()) as Started<'create'>;
    const created = await postJson(jar, `${at}/passkey/create/verify`, { csrf, challengeId: again.challengeId, response: authenticator.create(again.options) });
    expect(created.status).toBe(200);
    const { location } = (await created.json()) as { location: string };
    const callback = await toCallback(jar, at, location);
    expect((await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier })).claims()).toMatchObject({ sub: user.id });
    expect((await eventsOf('user.passkey_added')).map((e) => e.data.userId)).toEqual([user.id]);
    expect((await eventsOf('user.passkey_registration_failed')).map((e) => e.data.reason)).toEqual(['origin_mismatch']);

    // The next password sign-in goes straight on.
    const next = await passwordSignIn(user.userName);
    expect(next.res.status).toBe(303);
    expect(next.res.headers.get('location')).not.toContain('/passkey/create');
  });

  it('shows the step only with a pending sign-in: without one its page is the 400 page', async () => {
    const { at, jar, csrf } = await startSignIn();
    expect((await jar.fetch(`${at}/passkey/create`)).status).toBe(400);
    const options = await postJson(jar, `${at}/passkey/create/options`, { csrf });
    expect(options.status).toBe(400);
    expect(await options.json()).toMatchObject({ code: 'interaction.expired' });
  });

  it('offers it after a sign-up too, once the email is verified', async () => {
    const settings = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
      headers: bearer(token),
      payload: { signUpEnabled: true },
    });
    expect(settings.statusCode).toBe(200);
    const { at, jar, csrf } = await startSignIn();
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const form = await (await postForm(jar, `${at}/sign-up`, { csrf, email, password: PASSWORD })).text();
    const code = /\b(\d{6})\b/.exec((await waitForMessage(t.app, email, 'sign_up_code')).text)![1]!;
    const verified = await postForm(jar, `${at}/verify`, { csrf, signUp: inputValue(form, 'signUp')!, email, code });
    expect(verified.status).toBe(303);
    expect(verified.headers.get('location')).toBe(`${new URL(at).pathname}/passkey/create`);
  });
});
