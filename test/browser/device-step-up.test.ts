// The device-risk step-up in Chromium: with `challengeUnrecognized` on, a user's first browser signs in with the
// password alone and keeps a device cookie; a second browser (another device) is asked for a code sent to the user's
// email, says why, and signs in with the code read from the local SMTP server (the environment's active email
// provider, through the message-send process) (amr pwd+otp+email+mfa), receiving its own device cookie (HttpOnly,
// SameSite=Lax, the issuer's path). Every page passes axe-core.
import * as client from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { messagesTo } from '../helpers/inbox.ts';
import { directoryUser, oidcEnvironment, relyingParty, type OidcTestApp } from '../helpers/oidc.ts';
import { startSendingApp } from '../helpers/sending-app.ts';
import { setPassword } from '../helpers/sign-in.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/vendor-fakes/email-smtp.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let token: string;
let smtp: SmtpFake;
const SMTP = { username: 'mailer', password: 'smtp-password-0123456789' };

beforeAll(async () => {
  [t, browser, rp, smtp] = await Promise.all([startSendingApp(), launchBrowser(), startRelyingParty(), startSmtpFake(SMTP)]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close(), smtp?.close()]);
});

describeBrowser('the device-risk step-up in Chromium', () => {
  it('asks an unrecognised device for the code sent by email, then signs in', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/device-risk-policy`,
      headers: bearer(token),
      payload: { challengeUnrecognized: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    const provider = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/email-providers/smtp`,
      headers: bearer(token),
      payload: { provider: 'smtp', active: true, config: { host: smtp.host, port: smtp.port, requireTls: false, from: 'id@acme.example' }, secrets: SMTP },
    });
    expect(provider.statusCode, provider.body).toBe(200);
    const config = await relyingParty(env.issuer, env.clientId, null);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);

    /** Signs in with the password in a new page of `context`; returns the page and how to exchange the callback. */
    async function signIn(context: BrowserContext) {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: rp.callback,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(8_000);
      await page.goto(url.href);
      await page.getByLabel('User name or email').fill(user.userName);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const finish = async () => {
        // Consent is asked once per user and client: the second device goes straight back.
        const back = () => page.url().startsWith(rp.callback);
        await expect.poll(async () => back() || (await heading(page)) === 'Allow access').toBe(true);
        if (!back()) await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((u) => u.href.startsWith(rp.callback));
        const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
        return tokens.claims()!;
      };
      return { page, finish };
    }
    const deviceCookie = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === 'iam_device');

    const home = await browser.newContext();
    expect((await (await signIn(home)).finish()).amr).toEqual(['pwd']);
    expect(await deviceCookie(home)).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: `/v1/oidc/${env.environmentId}` });
    const mailsTo = () => smtp.received.filter((r) => r.envelope.to.includes(user.userName));
    expect(mailsTo()).toEqual([]);

    const away = await browser.newContext();
    const { page, finish } = await signIn(away);
    await expect.poll(() => heading(page)).toBe('Check your email');
    expect(await page.locator('main p').first().textContent()).toBe(
      'We do not recognise this sign-in. To make sure it is you, we sent a 6-digit code to your email address. Enter it to finish signing in. It works for 10 minutes.',
    );
    await expectAccessible(page);
    await expect.poll(() => mailsTo().length, { timeout: 15_000 }).toBe(1);
    const sent = /\b(\d{6})\b/.exec(mailsTo()[0]!.mail.text ?? '')![1]!;
    expect(messagesTo(t.app, user.userName)).toEqual([]);
    await page.getByLabel('Code from the email').fill(sent);
    await page.getByRole('button', { name: 'Verify' }).click();
    expect((await finish()).amr).toEqual(['pwd', 'otp', 'email', 'mfa']);
    const cookie = await deviceCookie(away);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookie!.value).not.toBe((await deviceCookie(home))!.value);
    await Promise.all([home.close(), away.close()]);
  });
});
