// Passkeys in Chromium with a CDP virtual authenticator (CTAP2, internal, resident keys, user verification): a
// password sign-in offers to create a passkey, the page script registers one, the user signs out, then signs in with
// "Sign in with a passkey" and gets tokens with amr hwk+user. A passkey removed by an administrator is refused with
// the error announced and focused. Every page passes axe-core. The service runs on http://localhost:<port>: browsers
// refuse an IP address as the WebAuthn RP id.
import * as client from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let token: string;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp({}, 'localhost'), launchBrowser(), startRelyingParty()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

// Chromium's virtual authenticator may answer a pending conditional (autofill) request by itself at any moment once
// it holds a passkey for the site, racing the test's own clicks: pages that sign in with the button turn off
// passkey autofill, like a browser without it.
const NO_AUTOFILL = 'PublicKeyCredential.isConditionalMediationAvailable = async () => false;';

/** A page whose browser has a platform authenticator that holds passkeys and verifies the user. */
async function pageWithAuthenticator(context: BrowserContext, autofill = true) {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  if (!autofill) await page.addInitScript(NO_AUTOFILL);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  const addCredential = (credential: Awaited<ReturnType<typeof credentials>>[number]) => cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  return { page, credentials, addCredential };
}

async function setUp() {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback], postLogoutRedirectUris: [rp.signedOut] });
  const config = await relyingParty(env.issuer, env.clientId, null);
  const user = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
  const authorization = async () => {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rp.callback,
      scope: 'openid profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url, exchange: (callback: string) => client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }) };
  };
  return { env, config, user, authorization };
}

describeBrowser('passkeys in Chromium', () => {
  it('creates a passkey after a password sign-in, signs out, and signs in with the passkey', async () => {
    const { config, user, authorization } = await setUp();
    const context = await browser.newContext();
    const { page, credentials } = await pageWithAuthenticator(context);

    // The identifier page starts a conditional request at once (passkeys in the field's autofill; none yet).
    const first = await authorization();
    const conditional = page.waitForRequest((request) => request.url().endsWith('/passkey/options'));
    await page.goto(first.url.href);
    await conditional;
    expect(await heading(page)).toBe('Sign in');
    expect(await page.getByLabel('User name or email').getAttribute('autocomplete')).toBe('username webauthn');
    await expectAccessible(page);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => heading(page)).toBe('Enter your password');
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).toBe(true);
    expect(await page.getByText('needs JavaScript').isVisible()).toBe(false);
    await expectAccessible(page);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect.poll(() => heading(page)).toBe('Create a passkey for faster sign-in');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
    expect(await credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    const tokens = await first.exchange(page.url());
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd'] });

    await page.goto(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: rp.signedOut }).href);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.signedOut));

    await page.addInitScript(NO_AUTOFILL);
    const second = await authorization();
    await page.goto(second.url.href);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Enter your password');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // Signing out ended the grant: consent is asked again.
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    expect((await second.exchange(page.url())).claims()).toMatchObject({ sub: user.id, amr: ['hwk', 'user'] });
    await context.close();
  });

  it('announces a refused passkey (removed by an administrator) in the page’s language and moves the focus to it', async () => {
    const { env, user, authorization } = await setUp();
    const registering = await browser.newContext({ locale: 'fr-FR' });
    const { page, credentials } = await pageWithAuthenticator(registering);
    await page.goto((await authorization()).url.href);
    await page.getByLabel('Nom d’utilisateur ou e-mail').fill(user.userName);
    await page.keyboard.press('Enter');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Créez une clé d’accès pour vous connecter plus vite');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Créer une clé d’accès' }).click();
    await expect.poll(() => heading(page)).toBe('Autoriser l’accès');
    const [credential] = await credentials();
    await registering.close();

    const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/passkeys`;
    const listed = await t.app.inject({ method: 'GET', url: base, headers: bearer(token) });
    const [passkey] = listed.json().passkeys as { id: string }[];
    const removed = await t.app.inject({ method: 'DELETE', url: `${base}/${passkey!.id}`, headers: bearer(token) });
    expect(removed.statusCode).toBe(200);

    // Another browser session whose authenticator still holds the passkey.
    const context = await browser.newContext({ locale: 'fr-FR' });
    const other = await pageWithAuthenticator(context, false);
    await other.addCredential(credential!);
    await other.page.goto((await authorization()).url.href);
    await other.page.getByLabel('Nom d’utilisateur ou e-mail').fill(user.userName);
    await other.page.keyboard.press('Enter');
    await expect.poll(() => heading(other.page)).toBe('Saisissez votre mot de passe');
    await other.page.getByRole('button', { name: 'Se connecter avec une clé d’accès' }).click();
    const alert = other.page.getByRole('alert');
    await expect
      .poll(() => alert.textContent())
      .toBe('Cette clé d’accès n’est enregistrée pour aucun compte ici. Utilisez une autre clé d’accès ou votre mot de passe.');
    expect(await other.page.evaluate('document.activeElement?.getAttribute("role")')).toBe('alert');
    await expectAccessible(other.page);
    await context.close();
  });

  it('says so when the browser has no passkey to offer (the ceremony ends without an answer), with the password still there', async () => {
    const { authorization } = await setUp();
    const context = await browser.newContext();
    const { page } = await pageWithAuthenticator(context);
    await page.goto((await authorization()).url.href);
    await page.getByLabel('User name or email').fill('nobody@example.com');
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Enter your password');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The passkey request was cancelled or timed out. Try again, or use your password.');
    await expectAccessible(page);
    expect(await page.getByLabel('Password', { exact: true }).isVisible()).toBe(true);
    await context.close();
  });
});
