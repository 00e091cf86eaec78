// An environment's sign-in page settings: GET/PUT with validation naming the field, audit and event, 404 to another
// organization; and the pages showing them (colours as CSS custom properties with readable text, the logo allowed
// by its exact URL, the default locale) on every instance from the next request on.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { contrast, textOn } from '../../api/oidc/pages/branding.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let path: string;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  path = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`;
});
afterAll(() => t.close());

const call = (method: 'GET' | 'PUT', payload?: object, auth = token) =>
  t.app.inject({ method, url: path, headers: bearer(auth), ...(payload ? { payload } : {}) });
const DEFAULTS = {
  displayName: null,
  logoUrl: null,
  primaryColor: null,
  backgroundColor: null,
  signUpEnabled: false,
  defaultLocale: null,
  emailCodeEnabled: false,
};

async function identifierPage(headers: Record<string, string> = {}) {
  const rp = await relyingParty(env.issuer, env.clientId, null);
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const page = await jar.fetch(at, { headers });
  return { page, body: await page.text() };
}

describe('sign-in settings', () => {
  it('are the defaults until saved; PUT replaces them with an audit entry and sign_in_settings.updated', async () => {
    expect((await call('GET')).json()).toEqual({ settings: { ...DEFAULTS, updatedAt: null } });
    const saved = await call('PUT', { displayName: ' Acme ', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#FFDD00', signUpEnabled: true });
    expect(saved.statusCode, saved.body).toBe(200);
    const settings = { ...DEFAULTS, displayName: 'Acme', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#ffdd00', signUpEnabled: true };
    expect(saved.json()).toEqual({ settings: { ...settings, updatedAt: expect.stringMatching(/^\d{4}-/) } });
    expect((await call('GET')).json()).toEqual(saved.json());
    // A field left out takes its default again.
    expect((await call('PUT', { defaultLocale: 'de' })).json().settings).toMatchObject({ ...DEFAULTS, defaultLocale: 'de' });

    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === 'sign_in_settings.updated');
    expect(events.map((e) => e.data)).toEqual([
      { environmentId: env.environmentId, settings, previous: DEFAULTS },
      { environmentId: env.environmentId, settings: { ...DEFAULTS, defaultLocale: 'de' }, previous: settings },
    ]);
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { resourceId: env.environmentId });
    // The audit entry keeps what changed.
    expect(audit.filter((a) => a.action === 'sign_in_settings.update').map((a) => [a.changes?.before, a.changes?.after])).toEqual([
      [
        { displayName: null, logoUrl: null, primaryColor: null, signUpEnabled: false },
        { displayName: 'Acme', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#ffdd00', signUpEnabled: true },
      ],
      [
        { displayName: 'Acme', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#ffdd00', signUpEnabled: true, defaultLocale: null },
        { displayName: null, logoUrl: null, primaryColor: null, signUpEnabled: false, defaultLocale: 'de' },
      ],
    ]);
  });

  it('refuse a bad field with a 400 naming it, changing nothing', async () => {
    const cases: [object, string][] = [
      [{ logoUrl: 'http://cdn.example.com/logo.png' }, 'body.logoUrl'],
      [{ logoUrl: 'https://cdn.example.com/a b.png' }, 'body.logoUrl'],
      [{ logoUrl: "https://cdn.example.com/a';script-src" }, 'body.logoUrl'],
      [{ primaryColor: 'red' }, 'body.primaryColor'],
      [{ backgroundColor: '#fff' }, 'body.backgroundColor'],
      [{ defaultLocale: 'es' }, 'body.defaultLocale'],
      [{ signUpEnabled: 'yes' }, 'body.signUpEnabled'],
      [{ emailCodeEnabled: 'yes' }, 'body.emailCodeEnabled'],
      [{ displayName: '' }, 'body.displayName'],
      [{ theme: 'dark' }, 'body.theme'],
    ];
    for (const [payload, field] of cases) {
      const res = await call('PUT', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect((await call('GET')).json().settings.updatedAt).toBeNull();
  });

  it('are 404 to another organization', async () => {
    const other = await otherOrganization(t);
    expect((await call('GET', undefined, other.token)).statusCode).toBe(404);
    expect((await call('PUT', { signUpEnabled: true }, other.token)).statusCode).toBe(404);
    expect((await call('GET')).json().settings.signUpEnabled).toBe(false);
  });

  it('brand the pages: colours as custom properties with readable text, the name and logo (allowed by exact URL), the default locale', async () => {
    const before = await identifierPage();
    expect(before.body).toContain(':root { --primary: #2251c5; --on-primary: #ffffff; --background: #f4f5f7;');
    await call('PUT', {
      displayName: 'Acme',
      logoUrl: 'https://cdn.example.com/acme.svg',
      primaryColor: '#ffdd00',
      backgroundColor: '#102030',
      defaultLocale: 'fr',
    });
    // The NOTIFY rebuilds the Provider: the next page shows the settings.
    await expect.poll(async () => (await identifierPage()).body.includes('#ffdd00')).toBe(true);
    const { page, body } = await identifierPage();
    expect(body).toContain(':root { --primary: #ffdd00; --on-primary: #1d2330; --background: #102030; --on-background: #ffffff; }');
    expect(body).toContain('<div class="brand"><img src="https://cdn.example.com/acme.svg" alt="Acme" /></div>');
    expect(page.headers.get('content-security-policy')).toMatch(/; img-src https:\/\/cdn\.example\.com\/acme\.svg; /);
    expect(page.headers.get('content-language')).toBe('fr');
    // The request's own language still wins over the default.
    expect((await identifierPage({ 'accept-language': 'de' })).page.headers.get('content-language')).toBe('de');
  });

  it('pick the text colour that passes WCAG AA on the brand colour', () => {
    expect(textOn('#2251c5')).toBe('#ffffff');
    expect(textOn('#ffdd00')).toBe('#1d2330');
    expect(textOn('#777777')).toBe('#1d2330'); // 4.48:1 against white: not enough
    expect(contrast('#ffffff', '#000000')).toBeCloseTo(21);
  });
});
