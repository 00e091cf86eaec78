// SAML 2.0 SSO against a local IdP (samlify): SP-initiated sign-in through the interaction, JIT provisioning from the
// assertion's attributes, encrypted assertions under the key the SP metadata publishes, and every bad response
// (tampered, replayed, wrong audience, expired, unknown state) refused with its audit entry and nothing changed.
import { sql } from 'slonik';
import { z } from 'zod';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { postForm, signInThroughPages } from '../helpers/sign-in.ts';
import { IDP_SSO_URL, samlIdp, tamper, type ResponseOptions } from '../helpers/saml-idp.ts';
import { saveConnection } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
let idp: ReturnType<typeof samlIdp>;
let connectionId: string;
let spMetadata: string;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
  idp = samlIdp();
  connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: idp.metadataXml });
  const metadata = await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/saml/metadata`);
  expect(metadata.status).toBe(200);
  spMetadata = await metadata.text();
});
afterAll(() => t.close());

const acsUrl = () => `${t.baseUrl}/v1/sso/${down.environmentId}/saml/acs`;
const Counts = z.object({ users: z.number(), identities: z.number() });
const counts = () =>
  t.pool.one(sql.type(Counts)`
    SELECT (SELECT count(*)::int FROM users WHERE environment_id = ${down.environmentId}) AS users,
      (SELECT count(*)::int FROM user_identities WHERE environment_id = ${down.environmentId}) AS identities`);
const eventsOf = async (type: string) => (await tenantEvents(t, down.tenantId, { environmentId: down.environmentId })).filter((e) => e.type === type);

/** A downstream sign-in sent to the IdP: the AuthnRequest's id, the RelayState, and what the token exchange needs. */
async function samlStart() {
  const jar = new CookieJar();
  const checks = { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: client.randomState(), expectedNonce: client.randomNonce() };
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const start = await jar.fetch(`${at}/sso/${connectionId}`);
  expect(start.status, await start.clone().text()).toBe(303);
  const location = start.headers.get('location')!;
  expect(location.startsWith(`${IDP_SSO_URL}?`)).toBe(true);
  return { jar, checks, location, ...idp.readRedirect(location) };
}

const respond = (requestId: string, options: Partial<ResponseOptions> = {}) =>
  idp.response(spMetadata, { nameId: 'grace@example.com', inResponseTo: requestId, attributes: { givenName: 'Grace', sn: 'Hopper' }, ...options });

/** Posts to the ACS and, on its redirect, finishes the downstream sign-in: the ID token's claims. */
async function signIn(jar: CookieJar, checks: client.AuthorizationCodeGrantChecks, relayState: string, samlResponse: string) {
  const acs = await postForm(jar, acsUrl(), { SAMLResponse: samlResponse, RelayState: relayState });
  expect(acs.status, await acs.clone().text()).toBe(303);
  const back = await signInThroughPages(new URL(acs.headers.get('location')!, acsUrl()).href, { userName: '', password: '' }, jar);
  return (await client.authorizationCodeGrant(rp, back.callback, checks)).claims()!;
}

describe('SAML SSO', () => {
  it('publishes an encryption key in the SP metadata it answers at its entity id', () => {
    expect(spMetadata).toContain(`entityID="${t.baseUrl}/v1/sso/${down.environmentId}/saml/metadata"`);
    expect(spMetadata).toContain(`Location="${acsUrl()}"`);
    expect(spMetadata).toMatch(/<md:KeyDescriptor use="encryption"><ds:KeyInfo[^>]*><ds:X509Data><ds:X509Certificate>MII/);
  });

  it('signs its AuthnRequests (RSA-SHA256) with the key its metadata publishes for signing, and says so', async () => {
    expect(spMetadata).toContain('AuthnRequestsSigned="true"');
    expect(spMetadata).toMatch(/<md:KeyDescriptor use="signing"><ds:KeyInfo[^>]*><ds:X509Data><ds:X509Certificate>MII/);
    const { location } = await samlStart();
    expect(new URL(location).searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(await idp.verifyRedirect(spMetadata, location)).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    // The signature covers the RelayState: another one does not verify.
    const bent = new URL(location);
    bent.searchParams.set('RelayState', 'someone-else');
    await expect(idp.verifyRedirect(spMetadata, bent.href)).rejects.toThrow();
  });

  it('signs in SP-initiated, creating the user from the assertion', async () => {
    const before = await counts();
    const { jar, checks, requestId, relayState } = await samlStart();
    const claims = await signIn(jar, checks, relayState!, await respond(requestId));
    expect(claims.amr).toEqual(['fed']);
    expect(await counts()).toEqual({ users: before.users + 1, identities: before.identities + 1 });
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/directory/users/${claims.sub}`,
      headers: bearer(token),
    });
    expect(res.json().user).toMatchObject({
      userName: 'grace@example.com',
      displayName: 'Grace Hopper',
      names: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ value: 'grace@example.com' }],
    });
    expect((await eventsOf('user.linked')).map((e) => e.data)).toEqual([
      { userId: claims.sub, connectionId, providerId: 'saml', subject: 'grace@example.com', email: 'grace@example.com', via: 'jit' },
    ]);
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.amr, e.data.connectionId])).toEqual([[['fed'], connectionId]]);
  });

  it('accepts an assertion encrypted to the key of its metadata', async () => {
    const { jar, checks, requestId, relayState } = await samlStart();
    const response = await respond(requestId, { encrypt: true });
    expect(Buffer.from(response, 'base64').toString()).toContain('EncryptedAssertion');
    expect(Buffer.from(response, 'base64').toString()).not.toContain('grace@example.com');
    const claims = await signIn(jar, checks, relayState!, response);
    expect(claims.sub).toEqual(expect.any(String));
  });

  const refusals: [string, string, (requestId: string) => Promise<string>, (relayState: string) => string][] = [
    ['a tampered response', 'tampered', async (id) => tamper(await respond(id), 'grace@example.com', 'admin@example.com'), (s) => s],
    ['a wrong audience', 'wrong_audience', (id) => respond(id, { audience: 'https://someone-else.example.com/sp' }), (s) => s],
    ['an expired assertion', 'expired', (id) => respond(id, { shiftMs: -10 * 60_000 }), (s) => s],
    ['an unknown state', 'state_unknown', (id) => respond(id), () => 'not-a-state'],
  ];
  it.each(refusals)('refuses %s with its reason, an audit entry and nothing changed', async (_name, reason, make, relay) => {
    const { jar, requestId, relayState } = await samlStart();
    const before = await counts();
    const res = await postForm(jar, acsUrl(), { SAMLResponse: await make(requestId), RelayState: relay(relayState!) });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(
      reason === 'expired' ? 'This sign-in expired or is not valid.' : 'The identity provider’s answer could not be accepted.',
    );
    expect(await counts()).toEqual(before);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual([reason]);
    expect(await eventsOf('user.signed_in')).toEqual([]);
    const audit = (await auditEntries(t, { tenantId: down.tenantId }, { action: 'user.sign_in_failed' })).filter((a) => a.environmentId === down.environmentId);
    expect(audit).toHaveLength(1);
  });

  it('ends the client’s request with access_denied when the IdP answers AuthnFailed or RequestDenied, audited; another status keeps the refusal page', async () => {
    for (const status of ['AuthnFailed', 'RequestDenied']) {
      const { jar, requestId, relayState } = await samlStart();
      const acs = await postForm(jar, acsUrl(), { SAMLResponse: idp.errorResponse(acsUrl(), requestId, status), RelayState: relayState! });
      expect(acs.status, await acs.clone().text()).toBe(303);
      const ended = await signInThroughPages(new URL(acs.headers.get('location')!, acsUrl()).href, { userName: '', password: '' }, jar);
      expect(ended.pages).toEqual([]);
      expect(`${ended.callback.origin}${ended.callback.pathname}`).toBe(REDIRECT_URI);
      expect(ended.callback.searchParams.get('error')).toBe('access_denied');
      expect(ended.callback.searchParams.get('error_description')).toBe('The user cancelled the sign-in at the identity provider.');
    }
    const other = await samlStart();
    const refused = await postForm(other.jar, acsUrl(), {
      SAMLResponse: idp.errorResponse(acsUrl(), other.requestId, 'UnknownPrincipal'),
      RelayState: other.relayState!,
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The identity provider’s answer could not be accepted.');
    expect((await eventsOf('user.sign_in_failed')).map((e) => [e.data.reason, e.data.connectionId, e.data.clientId])).toEqual([
      ['upstream_cancelled', connectionId, down.clientId],
      ['upstream_cancelled', connectionId, down.clientId],
      ['upstream_error', connectionId, down.clientId],
    ]);
    const audit = (await auditEntries(t, { tenantId: down.tenantId }, { action: 'user.sign_in_failed' })).filter((a) => a.environmentId === down.environmentId);
    expect(audit.map((a) => a.changes?.after?.reason).sort()).toEqual(['upstream_cancelled', 'upstream_cancelled', 'upstream_error']);
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('refuses an assertion posted again', async () => {
    const { jar, checks, requestId, relayState } = await samlStart();
    const response = await respond(requestId);
    await signIn(jar, checks, relayState!, response);
    const before = await counts();
    const again = await postForm(new CookieJar(), acsUrl(), { SAMLResponse: response, RelayState: relayState! });
    expect(again.status).toBe(400);
    expect(await counts()).toEqual(before);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['replayed']);
  });
});
