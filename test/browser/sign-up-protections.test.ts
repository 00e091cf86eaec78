// Sign-up protections in Chromium: a disposable email domain refused by the restrictions, then a breached password
// refused by the breached password policy, each with its reason shown on the sign-up form (accessible), and the
// account created once both are fixed; `warn` shows its notice on the code page.
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

/** An environment with sign-up, disposable domains refused and the breached password policy in `mode`; a page at sign-up. */
async function atSignUp(mode: 'block' | 'warn') {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
  const token = await t.token();
  const settings = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings`;
  for (const [path, payload] of [
    ['sign-in', { signUpEnabled: true }],
    ['restrictions', { blockDisposableEmails: true }],
    ['breached-password-policy', { enabled: true, mode }],
  ] as const) {
    expect((await t.app.inject({ method: 'PUT', url: `${settings}/${path}`, headers: bearer(token), payload })).statusCode).toBe(200);
  }
  const config = await relyingParty(env.issuer, env.clientId, null);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: rp.callback,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  await page.goto(url.href);
  await page.getByRole('link', { name: 'Create account' }).click();
  await expect.poll(() => heading(page)).toBe('Create your account');
  const submit = async (email: string, password: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (at least 8 characters)').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
  };
  return { context, page, submit };
}

describeBrowser('sign-up protections in Chromium', () => {
  it('refuses a disposable email domain, then a breached password, each with its reason; then creates the account', async () => {
    const { context, page, submit } = await atSignUp('block');
    await submit(`grace-${crypto.randomUUID().slice(0, 8)}@mailinator.com`, 'correct horse battery');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Disposable email addresses cannot be used here. Use a permanent email address.');
    await expect.poll(() => page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);

    const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await submit(email, 'password123');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('This password is too common or too easy to guess: passwords like it appear in data breaches. Choose another one.');
    await expect.poll(() => page.getByLabel('Password (at least 8 characters)').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);

    await submit(email, 'correct horse battery');
    await expect.poll(() => heading(page)).toBe('Check your email');
    expect(await waitForMessage(t.app, email, 'sign_up_code')).toMatchObject({ kind: 'sign_up_code' });
    await context.close();
  });

  it('warn: the breached password is accepted and the code page shows the notice', async () => {
    const { context, page, submit } = await atSignUp('warn');
    await submit(`ada-${crypto.randomUUID().slice(0, 8)}@example.com`, 'password123');
    await expect.poll(() => heading(page)).toBe('Check your email');
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('Your new password is too common or too easy to guess: passwords like it appear in data breaches. Consider changing it soon.');
    await expectAccessible(page);
    await context.close();
  });
});
