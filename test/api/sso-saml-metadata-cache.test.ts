// A SAML connection configured by `metadataUrl`: the IdP metadata is fetched once and cached (an hour, or the
// metadata's cacheDuration/validUntil), fetched again when a response's signature fails with the cached certificate
// (the IdP rolled its key over), and when the connection is saved again. A local HTTP server counts the fetches.
import http from 'node:http';
import type net from 'node:net';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { postForm, signInThroughPages } from '../helpers/sign-in.ts';
import { IDP_SSO_URL, samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection } from '../helpers/upstream-oidc.ts';
import { DEFAULT_TTL_MS, durationMs, expiryOf, MAX_TTL_MS } from '../../api/sso/idp-metadata-cache.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
let served = '';
let fetches = 0;
let failing = false;
let server: http.Server;
let metadataUrl = '';
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  server = http.createServer((req, res) => {
    fetches++;
    if (failing) return res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(served);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  metadataUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/metadata`;
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

const saveAgain = async (connectionId: string) => {
  const saved = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/connections`,
    headers: bearer(token),
    payload: { connectionId, providerId: 'saml', name: 'Renamed IdP', formPayload: JSON.stringify({ metadataUrl }) },
  });
  expect(saved.statusCode, saved.body).toBe(200);
};
const acsUrl = () => `${t.baseUrl}/v1/sso/${down.environmentId}/saml/acs`;
const eventsOf = async (type: string) => (await tenantEvents(t, down.tenantId, { environmentId: down.environmentId })).filter((e) => e.type === type);
/** The IdP's metadata with attributes added to its root (cacheDuration, validUntil). */
const withRoot = (xml: string, attributes: string) => xml.replace(/<(\w+:)?EntityDescriptor /, (open) => `${open}${attributes} `);

async function start(connectionId: string) {
  const jar = new CookieJar();
  const checks = { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: client.randomState() };
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const res = await jar.fetch(`${at}/sso/${connectionId}`);
  expect(res.status, await res.clone().text()).toBe(303);
  return { jar, checks, location: res.headers.get('location')! };
}

/** A whole sign-in answered by `idp`: the ACS status, and the ID token's subject when it signed in. */
async function signIn(connectionId: string, idp: ReturnType<typeof samlIdp>) {
  const { jar, checks, location } = await start(connectionId);
  const { requestId, relayState } = idp.readRedirect(location);
  const spMetadata = await (await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/saml/metadata`)).text();
  const samlResponse = await idp.response(spMetadata, { nameId: 'grace@example.com', inResponseTo: requestId });
  const acs = await postForm(jar, acsUrl(), { SAMLResponse: samlResponse, RelayState: relayState! });
  if (acs.status !== 303) return { status: acs.status, body: await acs.text() };
  const back = await signInThroughPages(new URL(acs.headers.get('location')!, acsUrl()).href, { userName: '', password: '' }, jar);
  const tokens = await client.authorizationCodeGrant(rp, back.callback, checks);
  return { status: acs.status, sub: tokens.claims()!.sub };
}

describe('IdP metadata by URL', () => {
  it('fetches it once for several sign-ins (start and response), and again once the connection is saved', async () => {
    const idp = samlIdp();
    served = idp.metadataXml;
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataUrl });
    const before = fetches;
    expect((await signIn(connectionId, idp)).status).toBe(303);
    expect((await signIn(connectionId, idp)).status).toBe(303);
    expect(fetches - before).toBe(1);

    await saveAgain(connectionId);
    const afterSave = fetches;
    await start(connectionId);
    await start(connectionId);
    expect(fetches - afterSave).toBe(1);
  });

  it('keeps it no longer than its cacheDuration or validUntil say', async () => {
    const idp = samlIdp();
    served = withRoot(idp.metadataXml, 'cacheDuration="PT0S"');
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataUrl });
    let before = fetches;
    await start(connectionId);
    await start(connectionId);
    expect(fetches - before).toBe(2);

    served = withRoot(idp.metadataXml, `validUntil="${new Date(Date.now() - 1000).toISOString()}" cacheDuration="P1D"`);
    const other = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataUrl: `${metadataUrl}?other` });
    before = fetches;
    await start(other);
    await start(other);
    expect(fetches - before).toBe(2);
  });

  it('says the identity provider cannot be reached when its metadata URL fails at the response (502 page, not an error)', async () => {
    const idp = samlIdp();
    served = idp.metadataXml;
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataUrl });
    const { jar, location } = await start(connectionId);
    const { requestId, relayState } = idp.readRedirect(location);
    const spMetadata = await (await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/saml/metadata`)).text();
    const samlResponse = await idp.response(spMetadata, { nameId: 'grace@example.com', inResponseTo: requestId });
    await saveAgain(connectionId);
    failing = true;
    try {
      const acs = await postForm(jar, acsUrl(), { SAMLResponse: samlResponse, RelayState: relayState! });
      expect(acs.status).toBe(502);
      expect(await acs.text()).toContain('The identity provider could not be reached. Try again later.');
    } finally {
      failing = false;
    }
  });

  it('fetches it again when a response is signed by a key the cached metadata does not have (key rollover)', async () => {
    const entityId = `https://idp.example.test/${crypto.randomUUID()}`;
    const old = samlIdp(entityId, IDP_SSO_URL);
    served = old.metadataXml;
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataUrl });
    const before = fetches;
    expect((await signIn(connectionId, old)).status).toBe(303);
    expect(fetches - before).toBe(1);

    // The IdP rolls its key over: its metadata now has the new certificate; the cache still has the old one.
    const rolled = samlIdp(entityId, IDP_SSO_URL);
    served = rolled.metadataXml;
    const after = await signIn(connectionId, rolled);
    expect(after.status, after.body).toBe(303);
    expect(fetches - before).toBe(2);
    // A response signed by neither key is refused (tampered) without another fetch within the minute.
    const forger = samlIdp(entityId, IDP_SSO_URL);
    const forged = await signIn(connectionId, forger);
    expect(forged.status).toBe(400);
    expect(fetches - before).toBe(2);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['tampered']);
  });
});

describe('metadata lifetime', () => {
  it('reads cacheDuration (xsd:duration) and validUntil, the sooner wins, at most a day, else an hour', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const root = (attributes: string) => `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" ${attributes} entityID="x"/>`;
    expect(durationMs('PT10M')).toBe(600_000);
    expect(durationMs('P1DT1H')).toBe(25 * 3_600_000);
    expect(durationMs('PT1.5S')).toBe(1500);
    expect(durationMs('P')).toBeNull();
    expect(durationMs('soon')).toBeNull();
    expect(expiryOf(root(''), now)).toBe(now + DEFAULT_TTL_MS);
    expect(expiryOf(root('cacheDuration="PT5M"'), now)).toBe(now + 300_000);
    expect(expiryOf(root('cacheDuration="P30D"'), now)).toBe(now + MAX_TTL_MS);
    expect(expiryOf(root('cacheDuration="PT5M" validUntil="2026-01-01T00:01:00Z"'), now)).toBe(now + 60_000);
    expect(expiryOf(root('cacheDuration="bad"'), now)).toBe(now + DEFAULT_TTL_MS);
  });
});
