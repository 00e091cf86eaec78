// Home-realm discovery on the identifier step: the identifier page's "Continue with …" buttons (active SSO
// connections, rank order); an email at a domain the tenant verified and an SSO connection lists goes straight to
// that connection's start (303); a required connection refuses passwords for those emails (403, pointing to SSO,
// evented); unverified domains, another tenant's domains and unknown domains get the normal factors page.
import { sql } from 'slonik';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, pageKind, postForm, setPassword } from '../helpers/sign-in.ts';
import { samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection } from '../helpers/upstream-oidc.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const newDomain = () => `acme-${crypto.randomUUID().slice(0, 8)}.com`;

/** A domain of `tenantId` through the API, verified as the DNS check would mark it (`verified`). */
async function tenantDomain(tenantId: string, domain: string, verified = true) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/domains`,
    headers: bearer(token),
    payload: { domain, validationMethod: 'dns_txt' },
  });
  expect(res.statusCode, res.body).toBe(201);
  if (verified)
    await t.pool.query(sql.unsafe`UPDATE tenant_domains SET verified = true, validated_at = now() WHERE tenant_id = ${tenantId} AND domain = ${domain}`);
}

/** A SAML connection of the environment (no network needed), bound to `domains`. */
const samlConnection = (settings: object = {}, name?: string) =>
  saveConnection(t, token, env.tenantId, env.environmentId, 'saml', { metadataXml: samlIdp().metadataXml, ...settings }).then(async (id) => {
    if (name) await t.pool.query(sql.unsafe`UPDATE environment_connections SET name = ${name} WHERE id = ${id}`);
    return id;
  });

async function identifierPage(parameters: Record<string, string> = {}) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    ...parameters,
  });
  const authorize = await jar.fetch(url);
  const at = new URL(authorize.headers.get('location')!, url).href;
  const body = await (await jar.fetch(at)).text();
  return { at, jar, body, csrf: inputValue(body, 'csrf')! };
}

async function postIdentifier(identifier: string) {
  const page = await identifierPage();
  const res = await postForm(page.jar, `${page.at}/identifier`, { csrf: page.csrf, identifier });
  return { ...page, res, next: res.status === 303 ? null : await res.text() };
}

const failures = async () =>
  (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === 'user.sign_in_failed').map((e) => e.data);

describe('the identifier page offers the SSO connections', () => {
  it('shows a "Continue with" button per active SSO connection, in rank order, each starting SSO for this interaction', async () => {
    const first = await samlConnection({}, 'Acme Okta');
    const inactive = await samlConnection({}, 'Old IdP');
    await t.pool.query(sql.unsafe`UPDATE environment_connections SET active = false WHERE id = ${inactive}`);
    const second = await samlConnection({}, 'Partner <SAML>');
    const { at, body } = await identifierPage();
    const path = new URL(at).pathname;
    const buttons = [...body.matchAll(/<form method="get" action="([^"]*)">\s*<button type="submit" class="sso">([^<]*)<\/button>/g)].map((m) => [m[1], m[2]]);
    expect(buttons).toEqual([
      [`${path}/sso/${first}`, 'Continue with Acme Okta'],
      [`${path}/sso/${second}`, 'Continue with Partner &lt;SAML&gt;'],
    ]);
  });

  it('shows a connection saved after the provider was built on the next page (the snapshot is rebuilt)', async () => {
    expect((await identifierPage()).body).not.toContain('/sso/');
    const added = await samlConnection();
    expect((await identifierPage()).body).toContain(`/sso/${added}"`);
  });

  it('labels the buttons in the page’s locale', async () => {
    await samlConnection({}, 'Acme Okta');
    const { body } = await identifierPage({ ui_locales: 'de' });
    expect(body).toContain('>Weiter mit Acme Okta</button>');
    expect(body).toContain('<section aria-label="Einmalanmeldung">');
  });

  it('shows no SSO section without SSO connections', async () => {
    const { body } = await identifierPage();
    expect(body).not.toContain('/sso/');
    expect(body).not.toContain('Single sign-on');
  });
});

describe('home-realm discovery', () => {
  it('sends an email at a verified, bound domain straight to the connection (any case of the email)', async () => {
    const domain = newDomain();
    await tenantDomain(env.tenantId, domain);
    const connectionId = await samlConnection({ domains: [domain.toUpperCase()] });
    for (const identifier of [`jane@${domain}`, `  Jane.Doe@${domain.toUpperCase()} `]) {
      const { at, res } = await postIdentifier(identifier);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${new URL(at).pathname}/sso/${connectionId}`);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('shows the password page for an unverified domain, another tenant’s verified domain, an unbound or unknown domain, and a user name', async () => {
    const unverified = newDomain();
    await tenantDomain(env.tenantId, unverified, false);
    const elsewhere = newDomain();
    const other = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name: `Other ${elsewhere}` } })).json()
      .tenant as { id: string };
    await tenantDomain(other.id, elsewhere);
    const unbound = newDomain();
    await tenantDomain(env.tenantId, unbound);
    await samlConnection({ domains: [unverified, elsewhere], requiredForDomains: true });
    for (const identifier of [`a@${unverified}`, `a@${elsewhere}`, `a@${unbound}`, 'a@example.org', 'jane']) {
      const { res, next } = await postIdentifier(identifier);
      expect(res.status, identifier).toBe(200);
      expect(pageKind(next!), identifier).toBe('password');
      expect(next).not.toContain('/sso/');
    }
  });

  it('ignores an inactive bound connection, and takes the first bound connection by rank', async () => {
    const domain = newDomain();
    await tenantDomain(env.tenantId, domain);
    const inactive = await samlConnection({ domains: [domain] });
    await t.pool.query(sql.unsafe`UPDATE environment_connections SET active = false WHERE id = ${inactive}`);
    expect((await postIdentifier(`a@${domain}`)).res.status).toBe(200);
    const first = await samlConnection({ domains: [domain] });
    await samlConnection({ domains: [domain], requiredForDomains: true });
    const { res } = await postIdentifier(`a@${domain}`);
    expect(res.headers.get('location')).toMatch(new RegExp(`/sso/${first}$`));
  });

  it('refuses a password for an email whose domain requires SSO, pointing to the connection, evented; a user name of such a user too once the password matches', async () => {
    const domain = newDomain();
    await tenantDomain(env.tenantId, domain);
    const connectionId = await samlConnection({ domains: [domain], requiredForDomains: true }, 'Acme Okta');
    const user = await directoryUser(t, env.environmentId, `jane@${domain}`);
    await t.pool.query(sql.unsafe`UPDATE users SET user_name = ${`jane-${domain}`} WHERE id = ${user.id}`);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);

    for (const identifier of [`Jane@${domain}`, `jane-${domain}`]) {
      const { at, jar, csrf } = await identifierPage();
      const res = await postForm(jar, `${at}/login`, { csrf, identifier, password: PASSWORD });
      expect(res.status, identifier).toBe(403);
      const body = await res.text();
      expect(body).toContain(
        '<p id="error" class="error" role="alert" tabindex="-1" autofocus>Your organization signs you in with Acme Okta. Use the button below instead of a password.</p>',
      );
      expect(body).toContain(`action="${new URL(at).pathname}/sso/${connectionId}"`);
      expect(body).toContain('>Continue with Acme Okta</button>');
      expect(pageKind(body)).toBe('other'); // no password form
    }
    // A user name with a wrong password: the usual answer, nothing about SSO.
    const { at, jar, csrf } = await identifierPage();
    const wrong = await postForm(jar, `${at}/login`, { csrf, identifier: `jane-${domain}`, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('/sso/');
    expect((await failures()).map((d) => [d.login, d.reason, d.userId])).toEqual([
      [`Jane@${domain}`, 'sso_required', user.id],
      [`jane-${domain}`, 'sso_required', user.id],
      [`jane-${domain}`, 'wrong_password', user.id],
    ]);
  });

  it('still accepts a password for an optional binding, and offers the connection beside it', async () => {
    const domain = newDomain();
    await tenantDomain(env.tenantId, domain);
    const connectionId = await samlConnection({ domains: [domain] });
    const user = await directoryUser(t, env.environmentId, `jane@${domain}`);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { at, jar, csrf } = await identifierPage();
    // A wrong password: the usual answer, the password form again and the connection as another way in.
    const wrong = await postForm(jar, `${at}/login`, { csrf, identifier: `jane@${domain}`, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    const body = await wrong.text();
    expect(pageKind(body)).toBe('password');
    expect(body).toContain(`action="${new URL(at).pathname}/sso/${connectionId}"`);
    expect(body).not.toContain('Your organization signs you in');
    const res = await postForm(jar, `${at}/login`, { csrf, identifier: `jane@${domain}`, password: PASSWORD });
    expect(res.status).toBe(303);
    expect((await failures()).map((d) => d.reason)).toEqual(['wrong_password']);
  });

  it('validates the connection’s domains setting', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/connections`,
      headers: bearer(token),
      payload: { providerId: 'saml', formPayload: JSON.stringify({ metadataXml: samlIdp().metadataXml, domains: ['https://acme.com'] }) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'environment_connection.invalid',
      error: 'Invalid request: body.formPayload.domains.0 must be a domain name without a scheme (example.com, not https://example.com).',
    });
  });
});
