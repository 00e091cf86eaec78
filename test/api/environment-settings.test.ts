import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let environmentId: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: 'https://iam.example.com' });
  token = await t.token();
});
// An environment of its own for every test: the settings one test saves never show in another.
beforeEach(async () => {
  const { project } = (
    await t.app.inject({ method: 'POST', url: `/v1/tenants/${t.credentials.tenantId}/projects`, headers: bearer(token), payload: { name: 'Settings' } })
  ).json();
  environmentId = project.environments[1].id;
  base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}`;
});
afterAll(() => t.close());

const get = (path: string, headers = bearer(token)) => t.app.inject({ method: 'GET', url: `${base}${path}`, headers });
const putUris = (payload: object, headers = bearer(token)) => t.app.inject({ method: 'PUT', url: `${base}/redirect-uris`, headers, payload });
const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';

describe('environment redirect URIs', () => {
  it('are empty at first, then saved, replaced and audited', async () => {
    expect((await get('/redirect-uris')).json()).toEqual({
      environment: { id: environmentId, name: 'production' },
      config: { id: environmentId, successRedirectUri: null, errorRedirectUri: null },
    });
    const res = await putUris({ successRedirectUri: 'https://app.example.com/callback?x=1', errorRedirectUri: 'http://localhost:3000/error' });
    expect(res.statusCode).toBe(200);
    expect(res.json().config).toEqual({
      id: environmentId,
      successRedirectUri: 'https://app.example.com/callback?x=1',
      errorRedirectUri: 'http://localhost:3000/error',
    });
    expect((await get('/redirect-uris')).json()).toEqual(res.json());
    const replaced = await putUris({ successRedirectUri: 'https://app.example.com/done' });
    expect(replaced.json().config).toEqual({ id: environmentId, successRedirectUri: 'https://app.example.com/done', errorRedirectUri: null });
    const events = await tenantEvents(t, t.credentials.tenantId, { type: 'environment.redirect_uris.saved', environmentId });
    expect(events.map((e) => e.data)).toEqual([
      { environmentId, successRedirectUri: 'https://app.example.com/callback?x=1', errorRedirectUri: 'http://localhost:3000/error' },
      { environmentId, successRedirectUri: 'https://app.example.com/done', errorRedirectUri: null },
    ]);
  });

  it.each([
    [{}, 'body.successRedirectUri', /^is required$/],
    [{ successRedirectUri: '/callback' }, 'body.successRedirectUri', /absolute http\(s\) URL/],
    [{ successRedirectUri: 'javascript:alert(1)' }, 'body.successRedirectUri', /absolute http\(s\) URL/],
    [{ successRedirectUri: 'https://app.example.com/cb#frag' }, 'body.successRedirectUri', /fragment/],
    [{ successRedirectUri: 'https://app.example.com', errorRedirectUri: 'ftp://x' }, 'body.errorRedirectUri', /absolute http\(s\) URL/],
    [{ successRedirectUri: 'https://app.example.com', other: 1 }, 'body.other', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await putUris(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });
});

describe('enterprise SSO metadata', () => {
  it('gives SAML service provider metadata: a valid EntityDescriptor with the ACS URL', async () => {
    const res = await get('/sso/saml/metadata');
    expect(res.statusCode).toBe(200);
    const sso = `https://iam.example.com/v1/sso/${environmentId}/saml`;
    const { metadata } = res.json();
    expect(metadata).toEqual({
      providerId: 'saml',
      protocol: 'saml',
      acsUrl: `${sso}/acs`,
      callbackUrl: `${sso}/acs`,
      loginUrl: `${sso}/login`,
      spEntityId: `${sso}/metadata`,
      metadataXml: expect.stringMatching(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<md:EntityDescriptor /),
      supportsMetadataUrl: true,
    });
    const doc = new DOMParser({
      onError: (_level, message) => {
        throw new Error(message);
      },
    }).parseFromString(metadata.metadataXml, 'application/xml');
    const root = doc.documentElement!;
    expect([root.namespaceURI, root.localName, root.getAttribute('entityID')]).toEqual([MD, 'EntityDescriptor', `${sso}/metadata`]);
    const sp = root.getElementsByTagNameNS(MD, 'SPSSODescriptor').item(0)!;
    expect(sp.getAttribute('protocolSupportEnumeration')).toBe('urn:oasis:names:tc:SAML:2.0:protocol');
    expect(sp.getAttribute('WantAssertionsSigned')).toBe('true');
    const acs = sp.getElementsByTagNameNS(MD, 'AssertionConsumerService').item(0)!;
    expect([acs.getAttribute('Binding'), acs.getAttribute('Location')]).toEqual(['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', `${sso}/acs`]);
  });

  it.each([
    ['oidc', 'oidc', true],
    ['google', 'oidc', false],
    ['github', 'oauth2', false],
  ])('gives the redirect URI of %s (%s)', async (providerId, protocol, supportsMetadataUrl) => {
    const sso = `https://iam.example.com/v1/sso/${environmentId}/${providerId}`;
    expect((await get(`/sso/${providerId}/metadata`)).json()).toEqual({
      metadata: {
        providerId,
        protocol,
        acsUrl: null,
        callbackUrl: `${sso}/callback`,
        loginUrl: `${sso}/login`,
        spEntityId: null,
        metadataXml: null,
        supportsMetadataUrl,
      },
    });
  });

  it('refuses providers without SSO', async () => {
    for (const providerId of ['email_password', 'myspace']) {
      const res = await get(`/sso/${providerId}/metadata`);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: 'params.providerId', message: expect.stringMatching(/saml/) }]);
    }
  });
});

// The SDK config (GET …/sdk-config) is tested in test/api/sdk-config.test.ts.

describe('environment settings access', () => {
  it("needs environments scopes and hides other organizations' environments", async () => {
    expect((await putUris({ successRedirectUri: 'https://x.example.com' }, bearer(await t.token('environments:read')))).statusCode).toBe(403);
    expect((await get('/sdk-config', bearer(await t.token('projects:read')))).statusCode).toBe(403);
    const other = await otherOrganization(t);
    for (const path of ['/redirect-uris', '/sdk-config', '/sso/saml/metadata']) {
      expect((await get(path, bearer(other.token))).statusCode, path).toBe(404);
    }
    expect((await putUris({ successRedirectUri: 'https://x.example.com' }, bearer(other.token))).statusCode).toBe(404);
    const missing = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${t.credentials.tenantId}/environments/${crypto.randomUUID()}/sdk-config`,
      headers: bearer(token),
    });
    expect(missing.json()).toMatchObject({ code: 'environment.not_found' });
  });
});
