// Sign-up in Chromium: "Create account" from the identifier page, the form, the code read from the test inbox,
// verification, consent and the code back at the relying party; every page passes axe-core.
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { waitForMessage } from '../helpers/inbox.ts';
import { oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp(), launchBrowser(), startRelyingParty()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

describeBrowser('sign-up in Chromium', () => {
  it('creates an account, verifies the email with the code from the inbox, and returns to the application signed in', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const settings = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
      headers: bearer(await t.token()),
      payload: { signUpEnabled: true, displayName: 'Acme', primaryColor: '#0b5d1e' },
    });
    expect(settings.statusCode).toBe(200);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rp.callback,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`;

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    await page.getByRole('link', { name: 'Create account' }).click();
    await expect.poll(() => heading(page)).toBe('Create your account');
    await expectAccessible(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Your name (optional)').fill('Grace Hopper');
    await page.getByLabel('Password (at least 8 characters)').fill('a brand new password');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect.poll(() => heading(page)).toBe('Check your email');
    await expectAccessible(page);
    const message = await waitForMessage(t.app, email, 'sign_up_code');
    await page.getByLabel('Verification code').fill(/\b(\d{6})\b/.exec(message.text)![1]!);
    await page.getByRole('button', { name: 'Verify' }).click();

    await expect.poll(() => heading(page)).toBe('Allow access');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ email, email_verified: true });
    await context.close();
  });
});
