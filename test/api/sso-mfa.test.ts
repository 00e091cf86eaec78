// The second factor after an SSO sign-in: the callback (OIDC) or ACS (SAML) resolves the user, then the interaction's
// continuation applies the environment's MFA policy like after a password, unless the upstream says it did MFA
// itself (ID token amr `mfa`, a multi-factor AuthnContextClassRef). The continuation is single use and bound to its
// interaction. `user.signed_in` is recorded once, when the login finishes, with the connection and the second factor.
import type * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService } from '../../api/mfa/index.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { authorize, follow, submit, toCallback, type Stop } from '../helpers/mfa-sign-in.ts';
import { postForm } from '../helpers/sign-in.ts';
import { samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection, scriptedIssuer } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
let upstream: Awaited<ReturnType<typeof scriptedIssuer>>;
let oidcConnection: string;
beforeAll(async () => {
  // On a host name (not an IP), passkeys are usable: a password sign-in would be offered one, an SSO sign-in is not.
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }, 'localhost');
  token = await t.token();
  upstream = await scriptedIssuer();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
  oidcConnection = await saveConnection(t, token, down.tenantId, down.environmentId, 'oidc', { issuer: upstream.issuer, clientId: 'rp', clientSecret: 's' });
});
afterAll(async () => {
  await upstream.close();
  await t.close();
});

const ACR_MFA = 'urn:iam:acr:mfa';
const eventsOf = async (type: string) => (await tenantEvents(t, down.tenantId, { environmentId: down.environmentId })).filter((e) => e.type === type);
const interactionOf = (stop: Stop) => /^(.*\/interaction\/[^/?]+)/.exec(stop.at)![1]!;

async function requireMfa() {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/settings/mfa`,
    headers: bearer(token),
    payload: { mode: 'required' },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** A downstream user with `email` and a confirmed authenticator (a minute old, so the codes of now are fresh). */
async function enrolledUser(email: string) {
  const user = await directoryUser(t, down.environmentId, email);
  const past = Date.now() - 60_000;
  const mfa = createMfaService(t.pool, t.masterKey, () => past);
  const env = { tenantId: down.tenantId, environmentId: down.environmentId };
  const started = await mfa.startTotpEnrolment(env, user.id);
  const confirmed = await mfa.confirmTotpEnrolment(env, user.id, started.factorId, totpCode(started.secret, past));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  return { id: user.id, secret: started.secret };
}

/** An authorization request sent upstream through the OIDC connection, answered with an ID token for `sub` (+ `extra` claims): the callback's response. */
async function oidcLeg(sub: string, extra: object = {}, parameters: Record<string, string> = {}) {
  const a = await authorize(rp, parameters);
  const start = await a.jar.fetch(`${interactionOf(a.stop)}/sso/${oidcConnection}`);
  expect(start.status, await start.clone().text()).toBe(303);
  const upstreamUrl = new URL(start.headers.get('location')!);
  upstream.answer(sub, 'rp', upstreamUrl.searchParams.get('nonce')!, false, extra);
  const callback = new URL(upstreamUrl.searchParams.get('redirect_uri')!);
  callback.search = new URLSearchParams({ code: 'c', state: upstreamUrl.searchParams.get('state')! }).toString();
  return { ...a, callback, response: await a.jar.fetch(callback) };
}

describe('MFA after an OIDC SSO sign-in', () => {
  it('asks the TOTP code the policy requires after the callback, then signs in with amr fed+otp+mfa, recorded once', async () => {
    await requireMfa();
    const user = await enrolledUser('alice@example.com');
    const leg = await oidcLeg('alice', { amr: ['pwd'] });
    expect(leg.response.status).toBe(303);
    const continuation = new URL(leg.response.headers.get('location')!, leg.callback);
    expect(continuation.href).toBe(`${interactionOf(leg.stop)}/sso/continue`);
    const challenge = await follow(leg.jar, leg.response, leg.callback.href);
    expect(challenge.kind, challenge.body).toBe('mfa');
    // Nothing is recorded as signed in before the second factor.
    expect(await eventsOf('user.signed_in')).toEqual([]);

    const done = await submit(leg.jar, challenge, 'mfa/totp', { code: totpCode(user.secret, Date.now()) });
    const claims = await leg.exchange(await toCallback(leg.jar, done));
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(['fed', 'otp', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    expect((await eventsOf('user.signed_in')).map((e) => e.data)).toEqual([
      {
        userId: user.id,
        clientId: down.clientId,
        amr: ['fed', 'otp', 'mfa'],
        ip: '127.0.0.1',
        remember: false,
        secondFactor: 'totp',
        connectionId: oidcConnection,
      },
    ]);
  });

  it('asks nothing more when the upstream ID token says amr mfa, even for a step-up (acr mfa)', async () => {
    await requireMfa();
    const user = await enrolledUser('bob@example.com');
    const leg = await oidcLeg('bob', { amr: ['pwd', 'otp', 'mfa'] }, { acr_values: ACR_MFA });
    const end = await follow(leg.jar, leg.response, leg.callback.href);
    const claims = await leg.exchange(await toCallback(leg.jar, end));
    expect(claims.amr).toEqual(['fed', 'mfa']);
    expect(claims.acr).toBe(ACR_MFA);
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.userId, e.data.amr, e.data.connectionId])).toEqual([
      [user.id, ['fed', 'mfa'], oidcConnection],
    ]);
  });

  it('signs in without a second factor where the policy asks none, the event naming the connection, offering no passkey', async () => {
    const leg = await oidcLeg('carol');
    const continued = await leg.jar.fetch(new URL(leg.response.headers.get('location')!, leg.callback));
    expect(continued.status).toBe(303);
    expect(continued.headers.get('location')).not.toMatch(/passkey/);
    const claims = await leg.exchange(await toCallback(leg.jar, await follow(leg.jar, continued, leg.callback.href)));
    expect(claims.amr).toEqual(['fed']);
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.userId, e.data.amr, e.data.secondFactor, e.data.connectionId])).toEqual([
      [claims.sub, ['fed'], null, oidcConnection],
    ]);
  });

  it('shows the 400 "start again" page for a continuation opened twice or by another interaction', async () => {
    await requireMfa();
    await enrolledUser('dave@example.com');
    const leg = await oidcLeg('dave');
    const continuation = new URL(leg.response.headers.get('location')!, leg.callback).href;
    const first = await leg.jar.fetch(continuation);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/\/mfa$/);
    const again = await leg.jar.fetch(continuation);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('This sign-in expired or is not valid.');

    // Another browser's interaction: its cookie does not open this one, and nothing waits at its own.
    const other = await authorize(rp);
    const foreign = await other.jar.fetch(continuation);
    expect(foreign.status).toBe(400);
    const own = await other.jar.fetch(`${interactionOf(other.stop)}/sso/continue`);
    expect(own.status).toBe(400);
    expect(await own.text()).toContain('This sign-in expired or is not valid.');
    // A result waiting for one interaction is not taken by another: a fresh leg, continued in the wrong browser first.
    const next = await oidcLeg('dave');
    const nextContinuation = new URL(next.response.headers.get('location')!, next.callback).href;
    expect((await other.jar.fetch(nextContinuation)).status).toBe(400);
    const mfa = await follow(next.jar, next.response, next.callback.href);
    expect(mfa.kind).toBe('mfa');
  });
});

describe('MFA after a SAML SSO sign-in', () => {
  const MFA_CLASS = 'https://refeds.org/profile/mfa';
  const PASSWORD_CLASS = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';

  async function samlLeg(idp: ReturnType<typeof samlIdp>, connectionId: string, classRef: string) {
    const spMetadata = await (await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/saml/metadata`)).text();
    const a = await authorize(rp);
    const start = await a.jar.fetch(`${interactionOf(a.stop)}/sso/${connectionId}`);
    const { requestId, relayState } = idp.readRedirect(start.headers.get('location')!);
    const samlResponse = await idp.response(spMetadata, { nameId: 'grace@example.com', inResponseTo: requestId, authnContextClassRef: classRef });
    const acs = `${t.baseUrl}/v1/sso/${down.environmentId}/saml/acs`;
    const response = await postForm(a.jar, acs, { SAMLResponse: samlResponse, RelayState: relayState! });
    expect(response.status, await response.clone().text()).toBe(303);
    return { ...a, connectionId, next: await follow(a.jar, response, acs) };
  }

  it('asks the TOTP code after a password-class assertion, and nothing after a multi-factor class', async () => {
    await requireMfa();
    const user = await enrolledUser('grace@example.com');
    const idp = samlIdp();
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', { metadataXml: idp.metadataXml });
    const plain = await samlLeg(idp, connectionId, PASSWORD_CLASS);
    expect(plain.next.kind, plain.next.body).toBe('mfa');
    const claims = await plain.exchange(
      await toCallback(plain.jar, await submit(plain.jar, plain.next, 'mfa/totp', { code: totpCode(user.secret, Date.now()) })),
    );
    expect(claims.amr).toEqual(['fed', 'otp', 'mfa']);

    const strong = await samlLeg(idp, connectionId, MFA_CLASS);
    const strongClaims = await strong.exchange(await toCallback(strong.jar, strong.next));
    expect(strongClaims.amr).toEqual(['fed', 'mfa']);
    expect(strongClaims.acr).toBe(ACR_MFA);
    expect((await eventsOf('user.signed_in')).map((e) => [e.data.amr, e.data.connectionId])).toEqual([
      [['fed', 'otp', 'mfa'], connectionId],
      [['fed', 'mfa'], connectionId],
    ]);
  });
});
