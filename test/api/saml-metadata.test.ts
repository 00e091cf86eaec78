import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spMetadataXml } from '../../api/families/projects/environment-settings/sso-metadata.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/saml/${name}`, import.meta.url), 'utf8');
const pem = (name: string) => fixture(`${name}.pem`).trim();
const OKTA = fixture('okta.xml');
const SAML = 'urn:oasis:names:tc:SAML:2.0';
const EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const OKTA_METADATA = {
  idpEntityId: 'http://www.okta.com/exk8a2b3c4d5e6f7g8h9',
  idpSsoUrl: 'https://acme.okta.com/app/acme_iam_1/exk8a2b3c4d5e6f7g8h9/sso/saml',
  idpX509Cert: pem('okta'),
  nameIdFormat: EMAIL,
  sloUrl: null,
};

// Two apps: one allowed to reach the local receiver (as in development), one with the default outbound policy.
let t: TestApp;
let strict: TestApp;
let receiver: Receiver;
let token: string;
let url: string;
beforeAll(async () => {
  [t, strict, receiver] = await Promise.all([startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }), startTestApp(), startReceiver()]);
  token = await t.token();
  url = `/v1/tenants/${t.credentials.tenantId}/environments/${t.credentials.environmentId}/saml/resolve-metadata`;
});
afterAll(() => Promise.all([t.close(), strict.close(), receiver.close()]));

const resolve = (payload: object, app = t, headers = bearer(token), path = url) => app.app.inject({ method: 'POST', url: path, headers, payload });

/** Okta's metadata with one part replaced. */
const okta = (from: string | RegExp, to: string) => OKTA.replace(from, to);

describe('resolving SAML IdP metadata XML', () => {
  it.each([
    ['Okta (md: prefix, both bindings, email NameID among several)', OKTA, OKTA_METADATA],
    [
      'Azure AD (default namespace, a signature and a WS-Fed role with another key before the IDPSSODescriptor)',
      fixture('azure-ad.xml'),
      {
        idpEntityId: 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/',
        idpSsoUrl: 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2',
        idpX509Cert: pem('azure'),
        nameIdFormat: null,
        sloUrl: 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2',
      },
    ],
    [
      'Keycloak (EntitiesDescriptor, an encryption key first, wrapped certificate, HTTP-Redirect preferred)',
      fixture('keycloak.xml'),
      {
        idpEntityId: 'https://keycloak.example.com/realms/acme',
        idpSsoUrl: 'https://keycloak.example.com/realms/acme/protocol/saml/redirect',
        idpX509Cert: pem('keycloak'),
        nameIdFormat: `${SAML}:nameid-format:persistent`,
        sloUrl: 'https://keycloak.example.com/realms/acme/protocol/saml/logout',
      },
    ],
    ['any prefix (saml2md:)', OKTA.replaceAll('md:', 'saml2md:').replace('xmlns:md=', 'xmlns:saml2md='), OKTA_METADATA],
    ['a KeyDescriptor without use (signing and encryption)', okta('<md:KeyDescriptor use="signing">', '<md:KeyDescriptor>'), OKTA_METADATA],
    ['only the HTTP-POST binding', okta(/<md:SingleSignOnService Binding="[^"]+HTTP-Redirect"[^>]+>/, ''), OKTA_METADATA],
  ])('reads %s', async (_name, metadataXml, metadata) => {
    const res = await resolve({ metadataXml });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ metadata });
  });

  it.each([
    ['malformed XML', okta('</md:IDPSSODescriptor>', ''), 'malformed_xml', /^is not well-formed XML: .*mismatch.*\(line 1, column \d+\)$/],
    [
      'an undeclared prefix',
      okta('<md:NameIDFormat>', '<x:NameIDFormat>').replace('</md:NameIDFormat>', '</x:NameIDFormat>'),
      'malformed_xml',
      /undeclared namespace prefix/,
    ],
    ['an unquoted attribute', okta('use="signing"', 'use=signing'), 'malformed_xml', /^is not well-formed XML/],
    ['text that is not XML', 'metadata please', 'malformed_xml', /^is not well-formed XML/],
    ['an HTML page', '<html><body><form>Sign in</form></body></html>', 'not_metadata', /root element is html in namespace \(none\)/],
    [
      'the right element in the wrong namespace',
      okta('urn:oasis:names:tc:SAML:2.0:metadata', 'urn:example:metadata'),
      'not_metadata',
      /in namespace urn:example:metadata/,
    ],
    ['service provider metadata', spMetadataXml('https://sp.example.com', 'https://sp.example.com/acs'), 'no_idp_descriptor', /has no IDPSSODescriptor/],
    [
      'an IdP of SAML 1.1 only',
      okta('protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"', 'protocolSupportEnumeration="urn:oasis:names:tc:SAML:1.1:protocol"'),
      'no_idp_descriptor',
      /supporting SAML 2.0/,
    ],
    ['no entityID', okta(/ entityID="[^"]+"/, ''), 'no_entity_id', /no entityID/],
    ['only an encryption key', okta('use="signing"', 'use="encryption"'), 'no_signing_certificate', /has no signing certificate/],
    ['no KeyDescriptor', okta(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, ''), 'no_signing_certificate', /could not be verified/],
    [
      'a certificate that is not one',
      okta(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>TUlJQm9ndXM='),
      'invalid_certificate',
      /not a valid X.509 certificate/,
    ],
    ['only a SOAP SingleSignOnService', okta(/HTTP-(POST|Redirect)/g, 'SOAP'), 'no_sso_service', /HTTP-Redirect or HTTP-POST/],
    [
      'a SingleSignOnService that is not a web URL',
      okta(/Location="https:\/\/acme[^"]+"/g, 'Location="javascript:alert(1)"'),
      'no_sso_service',
      /not an http\(s\) URL/,
    ],
  ])('refuses %s with the reason', async (_name, metadataXml, reason, message) => {
    const res = await resolve({ metadataXml });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ code: `saml_metadata.${reason}`, details: [{ path: 'body.metadataXml', message: expect.stringMatching(message) }] });
    expect(body.error).toBe(`Invalid SAML metadata: body.metadataXml ${body.details[0].message}.`);
  });

  it.each([
    [{}, 'body.metadataUrl', 'or metadataXml is required'],
    [{ metadataXml: OKTA, metadataUrl: 'https://idp.example.com/md' }, 'body.metadataXml', 'must not be given together with metadataUrl'],
    [{ metadataUrl: 'file:///etc/passwd' }, 'body.metadataUrl', 'must be an http(s) URL'],
    [{ metadataXml: OKTA, entityId: 'x' }, 'body.entityId', 'is not a known field'],
  ])('refuses the request %o naming %s', async (payload, path, message) => {
    const res = await resolve(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'request.invalid', details: [{ path, message }] });
  });
});

describe('resolving SAML IdP metadata from a URL', () => {
  const serve = (path: string, ...answers: Parameters<Receiver['script']>[1][]) => {
    receiver.script(path, ...answers);
    return `${receiver.url}${path}`;
  };
  const refusal = async (payload: object, reason: string, message: RegExp, app = t) => {
    const res = await resolve(
      payload,
      app,
      app === t ? bearer(token) : bearer(await app.token()),
      app === t ? url : `/v1/tenants/${app.credentials.tenantId}/environments/${app.credentials.environmentId}/saml/resolve-metadata`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: `saml_metadata.${reason}`, details: [{ path: 'body.metadataUrl', message: expect.stringMatching(message) }] });
  };

  it('fetches the document, following a redirect', async () => {
    const metadataUrl = serve('/okta', { status: 200, headers: { 'content-type': 'application/samlmetadata+xml' }, body: OKTA });
    expect((await resolve({ metadataUrl })).json()).toEqual({ metadata: OKTA_METADATA });
    expect(receiver.received.at(-1)).toMatchObject({
      method: 'GET',
      path: '/okta',
      headers: { accept: expect.stringContaining('application/samlmetadata+xml') },
    });
    const moved = serve('/moved', { status: 302, headers: { location: '/okta-2' } });
    serve('/okta-2', { status: 200, body: OKTA });
    expect((await resolve({ metadataUrl: moved })).json()).toEqual({ metadata: OKTA_METADATA });
  });

  it('refuses what the URL answers when it is not metadata', async () => {
    await refusal({ metadataUrl: serve('/missing', 404) }, 'fetch_failed', /^could not be fetched: answered HTTP 404$/);
    await refusal(
      { metadataUrl: serve('/login', { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Sign in</body></html>' }) },
      'not_metadata',
      /^returned a document that is not SAML 2.0 metadata/,
    );
    await refusal(
      {
        metadataUrl: serve(
          '/loop',
          { status: 302, headers: { location: '/loop' } },
          { status: 302, headers: { location: '/loop' } },
          { status: 302, headers: { location: '/loop' } },
          { status: 302, headers: { location: '/loop' } },
        ),
      },
      'fetch_failed',
      /more than 3 redirects/,
    );
    const closed = `http://127.0.0.1:9/metadata`;
    await refusal({ metadataUrl: closed }, 'fetch_failed', /connection refused/);
  });

  it('refuses a document larger than 1 MiB, announced or not', async () => {
    const big = `${OKTA}<!--${'x'.repeat(1024 * 1024)}-->`;
    await refusal({ metadataUrl: serve('/big', { status: 200, body: big }) }, 'too_large', /larger than 1 MiB/);
    const announced = serve('/big-announced', { status: 200, headers: { 'content-length': String(Buffer.byteLength(big)) }, body: big });
    await refusal({ metadataUrl: announced }, 'too_large', /larger than 1 MiB/);
    const justUnder = `${OKTA}<!--${'x'.repeat(1024 * 1024 - Buffer.byteLength(OKTA) - 7)}-->`;
    expect(Buffer.byteLength(justUnder)).toBe(1024 * 1024);
    expect((await resolve({ metadataUrl: serve('/max', { status: 200, body: justUnder }) })).json()).toEqual({ metadata: OKTA_METADATA });
  });

  it('gives up on a URL that does not answer within 5 s', { timeout: 15_000 }, async () => {
    const started = Date.now();
    await refusal({ metadataUrl: serve('/slow', 'hang') }, 'timeout', /^could not be fetched: no answer within 5 s$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
  });

  it('refuses private and loopback URLs with the default outbound policy, without a request', async () => {
    const before = receiver.received.length;
    await refusal(
      { metadataUrl: serve('/private', { status: 200, body: OKTA }) },
      'url_refused',
      /loopback address; outbound calls to private networks are refused/,
      strict,
    );
    await refusal({ metadataUrl: 'http://169.254.169.254/latest/meta-data' }, 'url_refused', /cloud metadata/, strict);
    await refusal({ metadataUrl: 'http://10.1.2.3/metadata' }, 'url_refused', /private address/, strict);
    expect(receiver.received.length).toBe(before);
  });

  it('answers 404 for an environment the caller cannot reach, and needs environments:write', async () => {
    const other = await otherOrganization(t);
    expect((await resolve({ metadataXml: OKTA }, t, bearer(other.token))).statusCode).toBe(404);
    expect((await resolve({ metadataXml: OKTA }, t, bearer(await t.token('environments:read')))).statusCode).toBe(403);
  });
});
