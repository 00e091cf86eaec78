// The brute-force policy in Chromium: after `maxFailures` wrong passwords typed into the hosted page, the right one is
// refused with the lockout's text (429) on an accessible page, until an operator ends the lockout.
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
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
  [t, browser, rp] = await Promise.all([startOidcApp(), launchBrowser(), startRelyingParty()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

const alert = (page: Page) => page.getByRole('alert').textContent();

describeBrowser('brute-force lockout in Chromium', () => {
  it('locks the sign-in out after maxFailures wrong passwords, says when to try again, and lets the user in once an operator ends the lockouts', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const settings = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/brute-force-policy`;
    const saved = await t.app.inject({ method: 'PUT', url: settings, headers: bearer(token), payload: { enabled: true, maxFailures: 3, lockoutMinutes: 10 } });
    expect(saved.statusCode).toBe(200);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rp.callback,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });

    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => heading(page)).toBe('Enter your password');
    /** Types `password` and signs in: the status of the answer. */
    const signIn = async (password: string) => {
      await page.getByLabel('Password', { exact: true }).fill(password);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/login') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await page.waitForLoadState();
      return answer.status();
    };
    for (const wrong of ['guess one', 'guess two', 'guess three']) {
      expect(await signIn(wrong)).toBe(401);
      expect(await alert(page)).toBe('Wrong user name or password.');
    }
    expect(await signIn(PASSWORD)).toBe(429);
    expect(await heading(page)).toBe('Enter your password');
    expect(await alert(page)).toBe('Too many failed sign-in attempts. Try again in 10 min.');
    await expectAccessible(page);

    // The browser's address failed three times too: both the identifier and the IP address are locked.
    const listed = await t.app.inject({ method: 'GET', url: `${settings}/lockouts`, headers: bearer(token) });
    const lockouts = listed.json().lockouts as { id: string; kind: string; userId: string | null }[];
    expect(lockouts.map((l) => [l.kind, l.userId]).sort()).toEqual([
      ['identifier', user.id],
      ['ip', null],
    ]);
    for (const lockout of lockouts) {
      const unlocked = await t.app.inject({ method: 'DELETE', url: `${settings}/lockouts/${lockout.id}`, headers: bearer(token) });
      expect(unlocked.statusCode).toBe(200);
    }
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
  });
});
