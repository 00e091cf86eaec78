// A form attached to sign-up, in Chromium: its fields are on the sign-up page (accessible), a person fills them with
// the rest of the form, verifies the email with the code from the inbox, and the answers are on the user.
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

const DEFINITION = {
  title: 'About you',
  fields: [
    { name: 'company', type: 'text', label: 'Company', required: true },
    { name: 'size', type: 'number', label: 'Team size', validation: { min: 1 } },
    {
      name: 'role',
      type: 'select',
      label: 'Role',
      options: [
        { value: 'dev', label: 'Developer' },
        { value: 'ops', label: 'Operations' },
      ],
    },
    { name: 'terms', type: 'boolean', label: 'I accept the terms', required: true },
  ],
};

describeBrowser('a sign-up form in Chromium', () => {
  it('renders the attached form, takes its answers with the sign-up, and stores them on the user', async () => {
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
    const token = await t.token();
    const api = async (method: 'POST' | 'PUT', path: string, payload: object) => {
      const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`;
      const res = await t.app.inject({ method, url, headers: bearer(token), payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json();
    };
    await api('PUT', '/settings/sign-in', { signUpEnabled: true });
    const { form } = await api('POST', '/forms', { name: 'Sign-up extras', key: 'signup_extra', definition: DEFINITION, status: 'published' });
    await api('POST', '/form-attachments', { formId: form.id, hookType: 'pre_signup' });

    const config = await relyingParty(env.issuer, env.clientId, null);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: rp.callback,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`;

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url.href);
    await page.getByRole('link', { name: 'Create account' }).click();
    await expect.poll(() => heading(page)).toBe('Create your account');
    await expect.poll(() => page.getByRole('group', { name: 'About you' }).isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (at least 8 characters)').fill('a brand new password');
    await page.getByLabel('Company').fill('Analytical Engines');
    await page.getByLabel('Team size (optional)').fill('12');
    await page.getByLabel('Role (optional)').selectOption({ label: 'Operations' });
    await page.getByLabel('I accept the terms').check();
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect.poll(() => heading(page)).toBe('Check your email');
    const message = await waitForMessage(t.app, email, 'sign_up_code');
    await page.getByLabel('Verification code').fill(/\b(\d{6})\b/.exec(message.text)![1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(rp.callback));
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier });
    await context.close();

    const user = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${tokens.claims()!.sub}`,
      headers: bearer(token),
    });
    expect(user.json().user).toMatchObject({
      userName: email,
      attributes: { forms: { signup_extra: { company: 'Analytical Engines', size: 12, role: 'ops', terms: true } } },
    });
  });
});
