// A texted code as the second factor in Chromium: a policy that requires a second factor and allows texted codes,
// with an active SMS provider; a user without an authenticator chooses "Use a text message instead", adds a phone
// number, and signs in with the texted code (amr pwd+sms+mfa); the next sign-in texts a code to that number on
// "Text me a code". Every page passes axe-core.
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { directoryUser, oidcEnvironment, relyingParty, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';
import { activeSmsProvider, nthCode, startSmsFake } from '../helpers/sms-codes.ts';
import { startSendingApp } from '../helpers/sending-app.ts';
import type { VendorFake } from '../helpers/vendor-fakes/sms-server.ts';

const PASSWORD = 'correct horse battery';
const PHONE = '+14155550177';
let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let fake: VendorFake;
let token: string;

beforeAll(async () => {
  [t, browser, rp, fake] = await Promise.all([startSendingApp(), launchBrowser(), startRelyingParty(), startSmsFake()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close(), fake?.close()]);
});

describeBrowser('a texted code as the second factor in Chromium', () => {
  it('enrols a phone instead of an authenticator, signs in with the texted code, and texts one at the next sign-in', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const envPath = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
    const res = await t.app.inject({
      method: 'PUT',
      url: `${envPath}/settings/mfa`,
      headers: bearer(token),
      payload: { mode: 'required', smsSecondFactor: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    await activeSmsProvider(t.app, token, envPath, fake);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);

    /** Signs in with the password in a new browser context, up to the second factor's page. */
    const signIn = async () => {
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
      const finish = async () => {
        const back = () => page.url().startsWith(rp.callback);
        await expect.poll(async () => back() || (await page.locator('h1').allTextContents()).includes('Allow access')).toBe(true);
        if (!back()) await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((u) => u.href.startsWith(rp.callback));
        const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
        await context.close();
        return tokens.claims();
      };
      return { page, finish };
    };

    const first = await signIn();
    let page = first.page;
    await expect.poll(() => heading(page)).toBe('Set up an authenticator app');
    await page.getByRole('link', { name: 'Use a text message instead' }).click();
    await expect.poll(() => heading(page)).toBe('Add your phone number');
    await expectAccessible(page);
    await page.getByLabel('Phone number with country code').fill('+1 415 555 0177');
    await page.getByRole('button', { name: 'Send the code' }).click();
    await expect.poll(() => heading(page)).toBe('Check your phone');
    await expectAccessible(page);
    const code = page.getByLabel('Code from the text message');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    await code.fill(await nthCode(t.app, fake, PHONE, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await first.finish()).toMatchObject({ sub: user.id, amr: ['pwd', 'sms', 'mfa'], acr: 'urn:iam:acr:mfa' });

    const next = await signIn();
    page = next.page;
    await expect.poll(() => heading(page)).toBe('Check your phone');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Text me a code' }).click();
    await expect.poll(() => page.getByText('We sent a 6-digit code to your phone number ending in …0177.').count()).toBe(1);
    await page.getByLabel('Code from the text message').fill(await nthCode(t.app, fake, PHONE, 2));
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await next.finish()).toMatchObject({ sub: user.id, amr: ['pwd', 'sms', 'mfa'], acr: 'urn:iam:acr:mfa' });
  });
});
