// The first sign-in: a directory user and password on the environment's login page, consent, and the code back to
// the client, all driven over HTTP; the failures a person can meet on the way, and the page's protections.
import { sql } from 'slonik';
import { z } from 'zod';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, pageKind, postForm, setPassword, signInThroughPages } from '../helpers/sign-in.ts';
import { saveResult } from '../../api/families/oidc/sign-in/interaction.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
// An environment of its own for every test: its events and grants are that test's only.
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const PASSWORD = 'correct horse battery';
const WRONG = 'Wrong user name or password.';

async function newUser(userName = `ada-${crypto.randomUUID().slice(0, 8)}`, password: string | null = PASSWORD) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users`,
    headers: bearer(token),
    payload: { userName, emails: [{ value: `${userName}@Example.com` }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  const user = res.json().user as { id: string; userName: string };
  if (password) await setPassword(t, token, env.tenantId, env.environmentId, user.id, password);
  return user;
}
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

/** An authorization request up to its login page: the page's URL, body and CSRF token, and the jar. */
async function loginPage(jar = new CookieJar()) {
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const authorize = await jar.fetch(url);
  expect(authorize.status).toBe(303);
  const at = new URL(authorize.headers.get('location')!, url).href;
  expect(at).toMatch(new RegExp(`^${env.issuer}/interaction/[^/]+$`));
  const page = await jar.fetch(at);
  const body = await page.text();
  return { at, page, body, csrf: inputValue(body, 'csrf')!, jar };
}

/** The page after the identifier page for `identifier`. */
async function passwordPage(identifier: string) {
  const { at, csrf, jar } = await loginPage();
  const res = await postForm(jar, `${at}/identifier`, { csrf, identifier });
  return { at, csrf, jar, res, body: await res.text() };
}

describe('the sign-in pages', () => {
  it('sign a user in with the password set through the API, ask consent, and return a code openid-client exchanges (PKCE)', async () => {
    const user = await newUser();
    const { tokens, pages } = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    expect(pages.map((p) => [p.kind, p.status])).toEqual([
      ['login', 200],
      ['password', 200],
      ['consent', 200],
    ]);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: env.issuer, sub: user.id, aud: env.clientId });
    const sessions = await t.pool.any(sql.type(z.object({ amr: z.unknown() }))`
      SELECT payload->'amr' AS amr FROM oidc_payloads WHERE environment_id = ${env.environmentId} AND model = 'Session' AND account_id = ${user.id}`);
    expect(sessions).toEqual([{ amr: ['pwd'] }]);

    const [signedIn] = await eventsOf('user.signed_in');
    expect(signedIn).toMatchObject({
      actor: { type: 'user', id: user.id },
      data: { userId: user.id, clientId: env.clientId, amr: ['pwd'], ip: '127.0.0.1', remember: false },
    });
    const [consented] = await eventsOf('user.consented');
    expect(consented?.data).toEqual({ userId: user.id, clientId: env.clientId, scopes: ['openid', 'profile', 'email'], grantId: expect.any(String) });
    const apps = await t.pool.any(
      sql.type(z.object({ userId: z.string(), scopes: z.array(z.string()), grantId: z.string(), revokedAt: z.string().nullable() }))`
        SELECT user_id AS "userId", scopes, grant_id AS "grantId", revoked_at::text AS "revokedAt" FROM oidc_client_grants WHERE environment_id = ${env.environmentId}`,
    );
    expect(apps).toEqual([{ userId: user.id, scopes: ['openid', 'profile', 'email'], grantId: consented!.data.grantId, revokedAt: null }]);
  });

  it('sign a user in with the password they set through a one-time link', async () => {
    const user = await newUser(undefined, null);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password-links`,
      headers: bearer(token),
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(201);
    const { url } = res.json() as { url: string };
    expect(url.startsWith(`${env.issuer}/password/`)).toBe(true);
    const set = await postForm(new CookieJar(), url, { password: 'chosen by the user', confirmation: 'chosen by the user' });
    expect(set.status).toBe(200);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: 'chosen by the user' });
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('serve the pages uncached under a strict CSP, with every value escaped and the client shown on the consent page', async () => {
    await t.pool.query(sql.unsafe`
      UPDATE oidc_clients SET name = '<script>alert(1)</script> & Co', logo_uri = 'https://cdn.example.com/logo.png',
        policy_uri = 'https://example.com/privacy', tos_uri = 'https://example.com/terms?a=1&b=2' WHERE client_id = ${env.clientId}`);
    const user = await newUser();
    const { page, body } = await loginPage();
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src 'none'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(body).not.toContain('<script>');

    const { pages } = await signInThroughPages(
      client.buildAuthorizationUrl(rp, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid email',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
      { userName: user.userName, password: PASSWORD },
    );
    const consent = pages.find((p) => p.kind === 'consent')!;
    expect(consent.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(consent.body).toContain('<img src="https://cdn.example.com/logo.png" alt="" />');
    // The logo is the one thing loaded from elsewhere, by its exact URL.
    expect(consent.headers.get('content-security-policy')).toMatch(/; img-src https:\/\/cdn\.example\.com\/logo\.png; /);
    expect(consent.headers.get('cache-control')).toBe('no-store');
    expect(consent.body).toContain('<a href="https://example.com/privacy" rel="noopener noreferrer">Privacy policy</a>');
    expect(consent.body).toContain('<a href="https://example.com/terms?a=1&amp;b=2" rel="noopener noreferrer">Terms of service</a>');
    expect(consent.body).toContain('See your email address <small>(email)</small>');
    expect(consent.body).toMatch(new RegExp(`wants to access your account\\s+<strong>${user.userName}</strong>`));
  });

  it('sign a user in by email, case-insensitively, and offer "keep me signed in" as the session config says', async () => {
    const user = await newUser();
    const { tokens, pages } = await codeFlowThroughPages(rp, { userName: `${user.userName.toUpperCase()}@EXAMPLE.COM`, password: PASSWORD, remember: true });
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(pages[1]!.body).toContain('Keep me signed in');
    expect((await eventsOf('user.signed_in'))[0]!.data.remember).toBe(true);

    await t.pool.query(sql.unsafe`
      INSERT INTO oidc_settings (environment_id, session_config) VALUES (${env.environmentId}, '{"rememberMe": false}')`);
    await expect.poll(async () => (await passwordPage(user.userName)).body.includes('Keep me signed in')).toBe(false);
  });

  it('answer a wrong password, an unknown user and an inactive user with the same page, recording why in user.sign_in_failed only', async () => {
    const user = await newUser();
    const inactive = await newUser();
    const deactivate = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${inactive.id}/deactivate`,
      headers: bearer(token),
    });
    expect(deactivate.statusCode).toBe(200);
    const noPassword = await newUser(undefined, null);

    const attempts = [
      [user.userName, 'not the password', 'wrong_password', user.id],
      ['nobody-here', PASSWORD, 'unknown_user', null],
      [inactive.userName, PASSWORD, 'inactive', inactive.id],
      [noPassword.userName, PASSWORD, 'wrong_password', noPassword.id],
    ] as const;
    const { at, csrf, jar } = await loginPage();
    for (const [userName, password] of attempts) {
      const res = await postForm(jar, `${at}/login`, { csrf, identifier: userName, password });
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(pageKind(body)).toBe('password');
      expect(body).toContain(`<p id="error" class="error" role="alert" tabindex="-1" autofocus>${WRONG}</p>`);
      expect(body).not.toMatch(/inactive|unknown|deactivated/i);
    }
    const failed = await eventsOf('user.sign_in_failed');
    expect(failed.map((e) => e.data)).toEqual(
      attempts.map(([login, , reason, userId]) => ({ userId, login, clientId: env.clientId, reason, ip: '127.0.0.1' })),
    );
    expect(await eventsOf('user.signed_in')).toEqual([]);

    // The same interaction still signs the right password in.
    const ok = await postForm(jar, `${at}/login`, { csrf, identifier: user.userName, password: PASSWORD });
    expect(ok.status).toBe(303);
    expect((await eventsOf('user.signed_in')).map((e) => e.data.userId)).toEqual([user.id]);
  });

  it('refuse a form without the interaction’s CSRF token with a 403 page, signing nobody in', async () => {
    const user = await newUser();
    const { at, csrf, jar } = await loginPage();
    const other = await loginPage(); // another interaction (another browser)
    const forms: Record<string, string>[] = [{}, { csrf: 'forged' }, { csrf: other.csrf }, { csrf: `${csrf}x` }];
    for (const fields of forms) {
      const res = await postForm(jar, `${at}/login`, { ...fields, identifier: user.userName, password: PASSWORD });
      expect(res.status).toBe(403);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toContain('The form was not sent by this sign-in page.');
    }
    expect(other.csrf).not.toBe(csrf);
    expect(await eventsOf('user.signed_in')).toEqual([]);
    expect(await eventsOf('user.sign_in_failed')).toEqual([]);
  });

  it('answer a tampered, unknown or finished interaction with a 400 page saying to start again', async () => {
    const user = await newUser();
    const { at, csrf, jar } = await loginPage();
    const tampered = `${at.slice(0, -4)}${at.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const res of [
      await jar.fetch(tampered),
      await postForm(jar, `${tampered}/login`, { csrf, identifier: user.userName, password: PASSWORD }),
      await fetch(at), // no interaction cookie
      await fetch(`${t.baseUrl}/v1/oidc/${crypto.randomUUID()}/interaction/abc`),
      await fetch(`${t.baseUrl}/v1/oidc/not-an-id/interaction/abc`),
    ]) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This sign-in expired or is not valid. Go back to the application and start again.');
    }
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('answer an expired interaction with the same 400 page, and sign nobody in', async () => {
    const user = await newUser();
    const { at, csrf, jar } = await loginPage();
    const uid = at.split('/').pop()!;
    await t.pool.query(sql.unsafe`
      UPDATE oidc_payloads SET expires_at = now() - interval '1 second',
        payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1))
      WHERE environment_id = ${env.environmentId} AND model = 'Interaction' AND id = ${uid}`);
    for (const res of [await jar.fetch(at), await postForm(jar, `${at}/login`, { csrf, identifier: user.userName, password: PASSWORD })]) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This sign-in expired');
    }
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('remember the consent: a second sign-in (a new browser) skips the consent page, a revoked one asks again', async () => {
    const user = await newUser();
    const first = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    expect(first.pages.map((p) => p.kind)).toEqual(['login', 'password', 'consent']);
    const second = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    expect(second.pages.map((p) => p.kind)).toEqual(['login', 'password']);
    expect(second.tokens.claims()!.sub).toBe(user.id);
    // More scopes than were granted: asked again.
    const wider = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD }, { scope: 'openid profile email phone' });
    expect(wider.pages.map((p) => p.kind)).toEqual(['login', 'password', 'consent']);
    expect(wider.pages[2]!.body).toContain('(phone)');

    await t.pool.query(sql.unsafe`UPDATE oidc_client_grants SET revoked_at = now() WHERE environment_id = ${env.environmentId}`);
    const afterRevoke = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    expect(afterRevoke.pages.map((p) => p.kind)).toEqual(['login', 'password', 'consent']);
    expect(await eventsOf('user.consented')).toHaveLength(3);
  });

  it('end the sign-in with access_denied when the user cancels, on the login or the consent page', async () => {
    const user = await newUser();
    const { at, csrf, jar } = await loginPage();
    const cancel = await postForm(jar, `${at}/abort`, { csrf });
    expect(cancel.status).toBe(303);
    const { callback } = await signInThroughPages(new URL(cancel.headers.get('location')!), { userName: user.userName, password: PASSWORD }, jar);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('access_denied');

    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const declined = await signInThroughPages(url, { userName: user.userName, password: PASSWORD, consent: 'cancel' });
    expect(declined.callback.searchParams.get('error')).toBe('access_denied');
    expect(await eventsOf('user.consented')).toEqual([]);
  });
});

// api/families/oidc/sign-in/interaction.ts: a step that ends on the interaction its request read saves the result
// there as oidc-provider's interactionResult does (lib/provider.js), without reading the interaction again.
describe('a step saved on the interaction its request read', () => {
  it('merges with the last submission unless told not to or the result is an error, keeps the expiry, and returns where to resume', async () => {
    const provider = await t.app.oidc.get(env.environmentId);
    const uidOf = async () => /\/interaction\/([^/?]+)/.exec((await loginPage()).at)![1]!;
    const login = { accountId: 'user-1', amr: ['pwd'], remember: false };
    const saved = async (result: Parameters<typeof saveResult>[1], merge: boolean) => {
      const interaction = (await provider.Interaction.find(await uidOf()))!;
      interaction.lastSubmission = { login };
      const returnTo = await saveResult(interaction, result, merge);
      const stored = (await provider.Interaction.find(interaction.uid))!;
      return { returnTo, expected: interaction.returnTo, result: stored.result, expiry: [stored.exp, interaction.exp] };
    };
    const merged = await saved({ consent: { grantId: 'grant-1' } }, true);
    expect(merged.result).toEqual({ login, consent: { grantId: 'grant-1' } });
    expect(merged.returnTo).toBe(merged.expected);
    expect(merged.returnTo).toContain(`/v1/oidc/${env.environmentId}/auth/`);
    expect(merged.expiry[0]).toBe(merged.expiry[1]);
    expect((await saved({ consent: { grantId: 'grant-2' } }, false)).result).toEqual({ consent: { grantId: 'grant-2' } });
    expect((await saved({ error: 'access_denied' }, true)).result).toEqual({ error: 'access_denied' });
  });
});
