// SAML connections beyond the single SP-initiated sign-in: IdP-initiated responses (refused unless allowed, then sent
// to the application), connection-scoped URLs when an environment has two SAML connections, and the new settings'
// validation.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { postForm, signInThroughPages } from '../helpers/sign-in.ts';
import { samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
});
afterAll(() => t.close());

const sso = (path: string) => `${t.baseUrl}/v1/sso/${down.environmentId}${path}`;
const eventsOf = async (type: string) => (await tenantEvents(t, down.tenantId, { environmentId: down.environmentId })).filter((e) => e.type === type);
const metadataOf = async (path: string) => {
  const res = await fetch(sso(path));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/samlmetadata+xml; charset=utf-8');
  return res.text();
};

describe('IdP-initiated SAML', () => {
  it('is refused unless the connection allows it', async () => {
    const idp = samlIdp();
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: idp.metadataXml });
    const response = await idp.response(await metadataOf('/saml/metadata'), { nameId: 'grace@example.com', inResponseTo: null });
    const res = await postForm(new CookieJar(), sso('/saml/acs'), { SAMLResponse: response });
    expect(res.status).toBe(400);
    expect((await eventsOf('user.sign_in_failed')).map((e) => [e.data.reason, e.data.connectionId, e.data.login])).toEqual([
      ['idp_initiated_refused', connectionId, 'grace@example.com'],
    ]);
  });

  it('sends an allowed one to the application once, signing nobody in here', async () => {
    const idp = samlIdp();
    await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', {
      metadataXml: idp.metadataXml,
      allowIdpInitiated: true,
      defaultRedirect: 'https://app.example.com/login',
    });
    const response = await idp.response(await metadataOf('/saml/metadata'), { nameId: 'grace@example.com', inResponseTo: null });
    const res = await postForm(new CookieJar(), sso('/saml/acs'), { SAMLResponse: response });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://app.example.com/login');
    const again = await postForm(new CookieJar(), sso('/saml/acs'), { SAMLResponse: response });
    expect(again.status).toBe(400);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['replayed']);
    expect(await eventsOf('user.signed_in')).toEqual([]);
    const login = await fetch(sso('/saml/login'), { redirect: 'manual' });
    expect([login.status, login.headers.get('location')]).toEqual([303, 'https://app.example.com/login']);
  });
});

describe('two SAML connections', () => {
  it('sign in at their own URLs, which the SSO metadata lists', async () => {
    const [first, second] = [samlIdp(), samlIdp()];
    const firstId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: first.metadataXml });
    const secondId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: second.metadataXml });
    const managed = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/sso/saml/metadata`,
      headers: bearer(token),
    });
    expect(managed.statusCode).toBe(200);
    const listed = managed.json().metadata.connections as { connectionId: string; acsUrl: string; spEntityId: string; metadataXml: string }[];
    expect(listed.map((c) => [c.connectionId, c.acsUrl, c.spEntityId])).toEqual([
      [firstId, sso(`/connections/${firstId}/acs`), sso(`/connections/${firstId}/metadata`)],
      [secondId, sso(`/connections/${secondId}/acs`), sso(`/connections/${secondId}/metadata`)],
    ]);
    const spMetadata = await metadataOf(`/connections/${secondId}/metadata`);
    expect(spMetadata).toBe(listed[1]!.metadataXml);

    const rp = await relyingParty(down.issuer, down.clientId, null);
    const jar = new CookieJar();
    const checks = { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: client.randomState() };
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
      code_challenge_method: 'S256',
      state: checks.expectedState,
    });
    const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
    const start = await jar.fetch(`${at}/sso/${secondId}`);
    const request = second.readRedirect(start.headers.get('location')!);
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${sso(`/connections/${secondId}/acs`)}"`);
    const response = await second.response(spMetadata, { nameId: 'ada@example.com', inResponseTo: request.requestId });
    // The provider-level ACS addresses no single connection now.
    const wrong = await postForm(jar, sso('/saml/acs'), { SAMLResponse: response, RelayState: request.relayState! });
    expect(wrong.status).toBe(400);
    const acs = await postForm(jar, sso(`/connections/${secondId}/acs`), { SAMLResponse: response, RelayState: request.relayState! });
    expect(acs.status, await acs.clone().text()).toBe(303);
    const back = await signInThroughPages(new URL(acs.headers.get('location')!, sso('')).href, { userName: '', password: '' }, jar);
    const claims = (await client.authorizationCodeGrant(rp, back.callback, checks)).claims()!;
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.userId, e.data.connectionId])).toEqual([[claims.sub, secondId]]);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['state_unknown']);
  });
});

describe('SAML emails', () => {
  /** An SP-initiated sign-in through `connectionId` answered for `nameId`: the ACS's answer. */
  async function answer(idp: ReturnType<typeof samlIdp>, connectionId: string, nameId: string) {
    const rp = await relyingParty(down.issuer, down.clientId, null);
    const jar = new CookieJar();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
    const request = idp.readRedirect((await jar.fetch(`${at}/sso/${connectionId}`)).headers.get('location')!);
    const response = await idp.response(await metadataOf('/saml/metadata'), { nameId, inResponseTo: request.requestId, attributes: { mail: nameId } });
    return postForm(jar, sso('/saml/acs'), { SAMLResponse: response, RelayState: request.relayState! });
  }

  it('links the user with the asserted email, unless the connection does not trust the IdP with emails', async () => {
    const idp = samlIdp();
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: idp.metadataXml });
    const existing = await directoryUser(t, down.environmentId);
    expect((await answer(idp, connectionId, existing.emails[0]!.value)).status).toBe(303);
    expect((await eventsOf('user.linked')).map((e) => [e.data.userId, e.data.via])).toEqual([[existing.id, 'email']]);

    // Another environment, so its connection is the only SAML one there and the provider-level URLs reach it.
    const untrusting = samlIdp();
    down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
    const untrustingId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: untrusting.metadataXml, trustEmail: false });
    const holder = await directoryUser(t, down.environmentId);
    const refused = await answer(untrusting, untrustingId, holder.emails[0]!.value);
    expect(refused.status).toBe(400);
    expect((await eventsOf('user.sign_in_failed')).map((e) => [e.data.reason, e.data.userId])).toEqual([['email_conflict', holder.id]]);
    expect(await eventsOf('user.linked')).toEqual([]);
  });
});

describe('connection settings', () => {
  it('names an unknown mapping field and a wrong provisioning', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/connections`,
      headers: bearer(token),
      payload: {
        providerId: 'oidc',
        formPayload: JSON.stringify({
          issuer: 'https://id.example.com',
          clientId: 'x',
          clientSecret: 'y',
          mapping: { email: 'mail', shoeSize: 'x' },
          provisioning: 'sometimes',
        }),
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: 'body.formPayload.mapping.shoeSize', message: 'is not a known field' },
      { path: 'body.formPayload.provisioning', message: expect.stringContaining('jit') },
    ]);
  });
});
