// An emailed code as the second factor in Chromium: a policy that requires a second factor and allows the email
// code; a user without an authenticator chooses "Email me a code instead" on the enrolment page, types a wrong code,
// asks too soon for a new one, then types the code from the test inbox and is signed in (amr pwd+otp+email+mfa).
// Every page passes axe-core.
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { waitForMessage } from '../helpers/inbox.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let token: string;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp({ LOG_LEVEL: 'error' }), launchBrowser(), startRelyingParty()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

describeBrowser('an emailed code as the second factor in Chromium', () => {
  it('is chosen instead of enrolling an authenticator, and signs in with the code from the email', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/mfa`,
      headers: bearer(token),
      payload: { mode: 'required', emailCodeSecondFactor: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rp.callback,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    await page.getByLabel('User name or email').fill(user.userName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page)).toBe('Set up an authenticator app');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Email me a code instead' }).click();
    await expect.poll(() => heading(page)).toBe('Check your email');
    await expectAccessible(page);
    const code = page.getByLabel('Code from the email');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    const sent = /\b(\d{6})\b/.exec((await waitForMessage(t.app, user.userName, 'sign_in_code')).text)![1]!;

    await code.fill(sent === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That code is not right. Check the email and try again.');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Send a new code' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('A code was sent less than 30 seconds ago. Wait a moment, then ask for a new one.');
    await expectAccessible(page);

    await page.getByLabel('Code from the email').fill(sent);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'email', 'mfa'], acr: 'urn:iam:acr:mfa' });
    await context.close();
  });
});
