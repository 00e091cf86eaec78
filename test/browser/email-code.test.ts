// Email code sign-in in Chromium: "Email me a code" on the factors page, the code read from the test inbox and
// typed (a wrong one first), the magic link opened in a second tab of the same browser and in another browser, and
// a link that can no longer be used; every page passes axe-core.
import { sql } from 'slonik';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { waitForMessage } from '../helpers/inbox.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp(), launchBrowser(), startRelyingParty()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
const linkOf = (text: string) => /(https?:\/\/\S+\/email-code\/[\w-]+)/.exec(text)![1]!;

/** An environment with email codes on, a user, and a page at the code page after "Email me a code". */
async function atCodePage() {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
  const settings = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
    headers: bearer(await t.token()),
    payload: { emailCodeEnabled: true },
  });
  expect(settings.statusCode).toBe(200);
  const user = await directoryUser(t, env.environmentId);
  const config = await relyingParty(env.issuer, env.clientId, null);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: rp.callback,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  await page.goto(url.href);
  await page.getByLabel('User name or email').fill(user.userName);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect.poll(() => heading(page)).toBe('Sign in');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await expect.poll(() => heading(page)).toBe('Check your email');
  await expectAccessible(page);
  const message = await waitForMessage(t.app, user.userName, 'sign_in_code');
  /** Allows on the consent page and exchanges the code the relying party got. */
  const allow = async (at: Page) => {
    await expect.poll(() => heading(at)).toBe('Allow access');
    await expectAccessible(at);
    await at.getByRole('button', { name: 'Allow' }).click();
    await at.waitForURL((u) => u.href.startsWith(rp.callback));
    return client.authorizationCodeGrant(config, new URL(at.url()), { pkceCodeVerifier: verifier });
  };
  return { env, user, context, page, message, allow };
}

describeBrowser('email code sign-in in Chromium', () => {
  it('signs in with the code from the email after a wrong one', async () => {
    const { user, context, page, message, allow } = await atCodePage();
    const code = codeOf(message.text);
    await page.getByLabel('Code from the email').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This code is not right. Check it and try again.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('error');
    await expectAccessible(page);
    await page.getByLabel('Code from the email').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const tokens = await allow(page);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['otp', 'email'] });
    await context.close();
  });

  it('signs in through the magic link in a second tab; another browser is sent back to the first tab', async () => {
    const { user, context, message, allow } = await atCodePage();
    const elsewhere = await browser.newContext();
    const other = await elsewhere.newPage();
    await other.goto(linkOf(message.text));
    expect(await heading(other)).toBe('Go back to your first tab');
    await expectAccessible(other);
    await elsewhere.close();

    const tab = await context.newPage();
    tab.setDefaultTimeout(8_000);
    await tab.goto(linkOf(message.text));
    const tokens = await allow(tab);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['otp', 'email'] });
    await context.close();
  });

  it('says a link that expired can no longer be used, with the way back to the sign-in', async () => {
    const { env, context, page, message } = await atCodePage();
    await t.pool.query(sql.unsafe`UPDATE sign_in_email_codes SET expires_at = now() WHERE environment_id = ${env.environmentId}`);
    await page.goto(linkOf(message.text));
    expect(await heading(page)).toBe('This link can no longer be used');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await expect.poll(() => heading(page)).toBe('Sign in');
    await context.close();
  });
});
