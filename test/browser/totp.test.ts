// TOTP on the sign-in pages in Chromium: a policy that requires a second factor, a user without an authenticator
// enrols on the way (the key read from the page, codes computed with otpauth as an authenticator app would), sees
// the recovery codes once, and is signed in; then signs in again with a code, passing by the recovery-code page and
// a wrong code. Every page passes axe-core.
import * as client from 'openid-client';
import { Secret, TOTP } from 'otpauth';
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

/** What an authenticator app shows for `secret`, `steps` periods from now. */
const appCode = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });

describeBrowser('TOTP sign-in in Chromium', () => {
  it('enrols under a required policy (QR, key, code, recovery codes), then signs in again with a code', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/mfa`,
      headers: bearer(token),
      payload: { mode: 'required' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const authorization = async () => {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: rp.callback,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const exchange = async (callback: string) =>
        (await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state })).claims()!;
      return { url, exchange };
    };
    const password = async (page: Page, url: URL) => {
      await page.goto(url.href);
      await page.getByLabel('User name or email').fill(user.userName);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };

    const first = await authorization();
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await password(page, first.url);
    await expect.poll(() => heading(page)).toBe('Set up an authenticator app');
    await expectAccessible(page);
    expect(await page.getByRole('img', { name: 'QR code that adds this account to an authenticator app' }).locator('svg').count()).toBe(1);
    const secret = (await page.locator('#secret').textContent())!.replace(/\s/g, '');
    const code = page.getByLabel('6-digit code');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await code.getAttribute('inputmode')).toBe('numeric');
    const enrolmentCode = appCode(secret);
    await code.fill(enrolmentCode);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => heading(page)).toBe('Save your recovery codes');
    await expectAccessible(page);
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await page.getByRole('button', { name: 'I saved them, continue' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    expect(await first.exchange(page.url())).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:iam:acr:mfa' });
    await context.close();

    // Another browser: the password, then the code: the enrolment's code again is refused, the app's next one signs in.
    const second = await authorization();
    const other = await browser.newContext();
    const again = await other.newPage();
    again.setDefaultTimeout(8_000);
    await password(again, second.url);
    await expect.poll(() => heading(again)).toBe('Enter your authentication code');
    await expectAccessible(again);
    await again.getByRole('link', { name: 'Use a recovery code instead' }).click();
    await expect.poll(() => heading(again)).toBe('Enter a recovery code');
    await expectAccessible(again);
    await again.getByRole('link', { name: 'Use your authenticator app instead' }).click();
    await expect.poll(() => heading(again)).toBe('Enter your authentication code');
    await again.getByLabel('6-digit code').fill(enrolmentCode);
    await again.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => again.getByRole('alert').textContent()).toBe('That code was already used. Wait for the next code in your app and enter it.');
    await expectAccessible(again);
    await again.getByLabel('6-digit code').fill(appCode(secret, 1));
    await again.getByRole('button', { name: 'Verify' }).click();
    await again.waitForURL((u) => u.href.startsWith(rp.callback));
    expect(await second.exchange(again.url())).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:iam:acr:mfa' });
    await other.close();
  });
});
