// SSO in a real browser. OIDC: the downstream identifier page's "Continue with …" button sends Chromium to a second
// environment of this service, whose own hosted pages sign the user in (identifier, password, consent), and back to
// the downstream, which finishes the sign-in (a JIT-created user, amr fed). SAML: home-realm discovery sends an email
// at the tenant's verified domain straight to a local SAML IdP whose page auto-posts the signed response to our ACS;
// where the MFA policy requires it, the TOTP page follows. axe on every page of ours on the way.
import { sql } from 'slonik';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser, startRelyingParty, type RelyingParty, heading } from '../helpers/browser.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { saveConnection, UPSTREAM_PASSWORD, upstreamOidc } from '../helpers/upstream-oidc.ts';
import { startSamlIdpServer } from '../helpers/saml-idp-server.ts';
import { setPassword } from '../helpers/sign-in.ts';
import { createMfaService } from '../../api/mfa/index.ts';
import { totpCode } from '../../lib/mfa/totp.ts';

let t: OidcTestApp;
let browser: Browser;
let rp: RelyingParty;
let token: string;

beforeAll(async () => {
  [t, browser, rp] = await Promise.all([startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }), launchBrowser(), startRelyingParty()]);
  token = await t.token();
});
afterAll(async () => {
  await Promise.all([browser?.close(), rp?.close(), t?.close()]);
});

/** A downstream environment with a public client redirecting to the relying party; its authorization URL and exchange. */
async function downstream() {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none', redirectUris: [rp.callback] });
  const config = await relyingParty(env.issuer, env.clientId, null);
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
  return { env, url, exchange };
}

async function newPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

/** The downstream consent page, then the relying party's callback: the downstream's ID token claims. */
async function consentDownstream(
  page: Page,
  issuer: string,
  exchange: (callback: string) => Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers>,
) {
  await page.waitForURL((u) => u.href.startsWith(issuer) || u.href.startsWith(rp.callback));
  await expect.poll(() => heading(page)).toBe('Allow access');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(rp.callback));
  return (await exchange(page.url())).claims()!;
}

/** A verified domain of the environment's tenant, bound to a required SAML connection whose IdP answers for `grace@<domain>`. */
async function requiredSaml(env: { tenantId: string; environmentId: string }) {
  const domain = `acme-${crypto.randomUUID().slice(0, 8)}.com`;
  const email = `grace@${domain}`;
  const created = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${env.tenantId}/domains`,
    headers: bearer(token),
    payload: { domain, validationMethod: 'dns_txt' },
  });
  expect(created.statusCode).toBe(201);
  // As the DNS check marks a domain whose TXT record it found.
  await t.pool.query(sql.unsafe`UPDATE tenant_domains SET verified = true, validated_at = now() WHERE tenant_id = ${env.tenantId} AND domain = ${domain}`);
  const idp = await startSamlIdpServer({ nameId: email, attributes: { givenName: 'Grace', sn: 'Hopper' } });
  await saveConnection(t, token, env.tenantId, env.environmentId, 'saml', { metadataXml: idp.metadataXml, domains: [domain], requiredForDomains: true });
  idp.trust(await (await fetch(`${t.baseUrl}/v1/sso/${env.environmentId}/saml/metadata`)).text());
  return { email, idp };
}

describeBrowser('SSO in Chromium', () => {
  it('signs in through an upstream environment of this service: its own pages, then back, JIT-provisioned', async () => {
    const { env, url, exchange } = await downstream();
    const up = await upstreamOidc(t, token, env);
    await t.pool.query(sql.unsafe`UPDATE environment_connections SET name = 'Upstream IdP' WHERE id = ${up.connectionId}`);
    const { context, page } = await newPage();
    await page.goto(url.href);
    expect(await heading(page)).toBe('Sign in');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Continue with Upstream IdP' }).click();

    // The upstream environment's own pages.
    await page.waitForURL((u) => u.href.startsWith(`${up.issuer}/interaction/`));
    expect(await heading(page)).toBe('Sign in');
    await page.getByLabel('User name or email').fill(up.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => heading(page)).toBe('Enter your password');
    await page.getByLabel('Password', { exact: true }).fill(UPSTREAM_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page)).toBe('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();

    // Back downstream: the callback finished the sign-in; the downstream asks for its own consent.
    const claims = await consentDownstream(page, env.issuer, exchange);
    expect(claims).toMatchObject({ iss: env.issuer, amr: ['fed'] });
    const user = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${claims.sub}`,
      headers: bearer(token),
    });
    expect(user.json().user).toMatchObject({ userName: up.email, emails: [{ value: up.email, type: 'work' }] });
    await context.close();
  });

  it('sends an email at the tenant’s verified domain straight to its required SAML IdP, and signs in by the posted response', async () => {
    const { env, url, exchange } = await downstream();
    const { email, idp } = await requiredSaml(env);
    try {
      const { context, page } = await newPage();
      await page.goto(url.href);
      await expectAccessible(page);
      await page.getByLabel('User name or email').fill(email.toUpperCase());
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      const claims = await consentDownstream(page, env.issuer, exchange);
      expect(claims).toMatchObject({ iss: env.issuer, amr: ['fed'] });
      const user = await t.app.inject({
        method: 'GET',
        url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${claims.sub}`,
        headers: bearer(token),
      });
      expect(user.json().user).toMatchObject({ userName: email, displayName: 'Grace Hopper', names: { givenName: 'Grace', familyName: 'Hopper' } });
      await context.close();
    } finally {
      await idp.close();
    }
  });

  it('refuses the password of a user name whose email domain requires SSO, and offers the connection instead', async () => {
    const { env, url, exchange } = await downstream();
    const { email, idp } = await requiredSaml(env);
    try {
      const user = await directoryUser(t, env.environmentId, email);
      await t.pool.query(sql.unsafe`UPDATE users SET user_name = 'grace' WHERE id = ${user.id}`);
      await setPassword(t, token, env.tenantId, env.environmentId, user.id, 'correct horse battery');
      const { context, page } = await newPage();
      await page.goto(url.href);
      await page.getByLabel('User name or email').fill('grace');
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await expect.poll(() => heading(page)).toBe('Enter your password');
      await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Your organization signs you in with SAML. Use the button below instead of a password.');
      expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Continue with SAML' }).click();
      const claims = await consentDownstream(page, env.issuer, exchange);
      expect(claims).toMatchObject({ sub: user.id, amr: ['fed'] });
      await context.close();
    } finally {
      await idp.close();
    }
  });
  it('asks the TOTP code the MFA policy requires after the SAML IdP’s response, then signs in with amr fed+otp+mfa', async () => {
    const { env, url, exchange } = await downstream();
    const { email, idp } = await requiredSaml(env);
    try {
      const policy = await t.app.inject({
        method: 'PUT',
        url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/mfa`,
        headers: bearer(token),
        payload: { mode: 'required' },
      });
      expect(policy.statusCode, policy.body).toBe(200);
      const user = await directoryUser(t, env.environmentId, email);
      const past = Date.now() - 60_000;
      const mfa = createMfaService(t.pool, t.masterKey, () => past);
      const mfaEnv = { tenantId: env.tenantId, environmentId: env.environmentId };
      const started = await mfa.startTotpEnrolment(mfaEnv, user.id);
      expect((await mfa.confirmTotpEnrolment(mfaEnv, user.id, started.factorId, totpCode(started.secret, past))).ok).toBe(true);

      const { context, page } = await newPage();
      await page.goto(url.href);
      await page.getByLabel('User name or email').fill(email);
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await expect.poll(() => heading(page)).toBe('Enter your authentication code');
      expect(page.url()).toMatch(/\/interaction\/[^/]+\/mfa$/);
      await expectAccessible(page);
      await page.getByLabel('6-digit code').fill(totpCode(started.secret, Date.now()));
      await page.getByRole('button', { name: 'Verify' }).click();
      const claims = await consentDownstream(page, env.issuer, exchange);
      expect(claims).toMatchObject({ sub: user.id, amr: ['fed', 'otp', 'mfa'], acr: 'urn:iam:acr:mfa' });
      await context.close();
    } finally {
      await idp.close();
    }
  });
});
