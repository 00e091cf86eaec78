// Password sign-in in a real browser: a relying party's authorization URL opened in Chromium, the user's name and
// password typed into our pages, consent, the redirect back with a code that openid-client exchanges for tokens, and
// RP-initiated logout through our logout page. Every page on the way passes axe-core; keyboard alone is enough.
import { sql } from 'slonik';
import { z } from 'zod';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';
import { waitForMessage } from '../helpers/inbox.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let token: string;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp(), launchBrowser(), startRelyingParty()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

async function setUp() {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback], postLogoutRedirectUris: [rp.signedOut] });
  const config = await relyingParty(env.issuer, env.clientId, null);
  const user = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: rp.callback,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const exchange = (callback: string) => client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state });
  return { env, config, user, url, exchange };
}

const focused = (page: Page) => page.evaluate('document.activeElement?.id');

describeBrowser('password sign-in in Chromium', () => {
  it('signs in with user name and password, consents, gets tokens, and signs out through the logout page', async () => {
    const { env, config, user, url, exchange } = await setUp();
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    expect(await heading(page)).toBe('Sign in');
    await expectAccessible(page);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => heading(page)).toBe('Enter your password');
    await expectAccessible(page);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await expect.poll(() => heading(page)).toBe('Allow access');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    expect(new URL(page.url()).searchParams.get('code')).toEqual(expect.any(String));
    const tokens = await exchange(page.url());
    expect(tokens.claims()).toMatchObject({ iss: env.issuer, sub: user.id });

    await page.goto(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: rp.signedOut }).href);
    expect(await heading(page)).toBe('Sign out?');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.signedOut));
    const sessions = await t.pool.anyFirst(
      sql.type(
        z.object({ revoked: z.boolean() }),
      )`SELECT revoked_at IS NOT NULL AS revoked FROM directory_sessions WHERE environment_id = ${env.environmentId}`,
    );
    expect(sessions).toEqual([true]);
    // The session is over: the same authorization asks to sign in again.
    await page.goto(url.href);
    expect(await heading(page)).toBe('Sign in');
    // A logout with no session and nowhere to return to ends on our "signed out" page at once.
    await page.goto(`${env.issuer}/session/end`);
    await expect.poll(() => heading(page)).toBe('You are signed out');
    await expectAccessible(page);
    await context.close();
  });

  it('signs in with the keyboard alone (Tab and Enter)', async () => {
    const { user, url, exchange } = await setUp();
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    // Each page's first field has the focus; Tab moves through the form in order; Enter submits.
    await expect.poll(() => focused(page)).toBe('identifier');
    await page.keyboard.type(user.userName);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.name')).toBe('remember');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Sign in');
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Allow access');
    // Tab to Allow, then Enter.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Allow');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    expect((await exchange(page.url())).claims()!.sub).toBe(user.id);
    await context.close();
  });

  it('shows the login page in German, by ui_locales=de and by Accept-Language: de-DE', async () => {
    const { url } = await setUp();
    const byParameter = new URL(url);
    byParameter.searchParams.set('ui_locales', 'de');
    for (const [target, options] of [
      [byParameter.href, {}],
      [url.href, { locale: 'de-DE' }],
    ] as const) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      page.setDefaultTimeout(8_000);
      await page.goto(target);
      expect(await heading(page)).toBe('Anmelden');
      expect(await page.getAttribute('html', 'lang')).toBe('de');
      await page.getByLabel('Benutzername oder E-Mail-Adresse').fill('jemand@example.com');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Weiter' }).click();
      await expect.poll(() => heading(page)).toBe('Passwort eingeben');
      await expectAccessible(page);
      await context.close();
    }
  });

  it('announces a wrong password and moves the focus to it; "Forgot your password?" sends a link whose page sets a new one', async () => {
    const { user, url, exchange } = await setUp();
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.keyboard.press('Enter');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong user name or password.');
    expect(await focused(page)).toBe('error');
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await expect.poll(() => heading(page)).toBe('Reset your password');
    await expectAccessible(page);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.getByRole('button', { name: 'Send link' }).click();
    await expect.poll(() => heading(page)).toBe('Check your email');
    await expectAccessible(page);
    const message = await waitForMessage(t.app, user.userName, 'password_reset');
    const link = /https?:\/\/\S+\/password\/[A-Za-z0-9_-]{43}/.exec(message.text)![0];

    const linkPage = await context.newPage();
    await linkPage.goto(link);
    await expectAccessible(linkPage);
    await linkPage.getByLabel('New password').fill('a fresh password');
    await linkPage.getByLabel('Repeat the password').fill('a fresh password');
    await linkPage.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => heading(linkPage)).toBe('Password set');
    await linkPage.close();

    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await page.getByLabel('User name or email').fill(user.userName);
    await page.keyboard.press('Enter');
    await page.getByLabel('Password', { exact: true }).fill('a fresh password');
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    expect((await exchange(page.url())).claims()!.sub).toBe(user.id);
    await context.close();
  });
});
