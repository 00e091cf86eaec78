// SSO through an upstream OpenID provider (a second environment of this service): the interaction is sent upstream,
// the user signs in there, and the callback finishes the downstream sign-in: JIT-created on the first sign-in, found
// by its identity on the next, linked by verified email to an existing user; refusals audited with nothing changed.
import { sql } from 'slonik';
import { z } from 'zod';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword, signInThroughPages } from '../helpers/sign-in.ts';
import { saveConnection, scriptedIssuer, UPSTREAM_PASSWORD, upstreamOidc } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
});
afterAll(() => t.close());

const Counts = z.object({ users: z.number(), identities: z.number() });
const counts = () =>
  t.pool.one(sql.type(Counts)`
    SELECT (SELECT count(*)::int FROM users WHERE environment_id = ${down.environmentId}) AS users,
      (SELECT count(*)::int FROM user_identities WHERE environment_id = ${down.environmentId}) AS identities`);
const eventsOf = async (type: string) => (await tenantEvents(t, down.tenantId, { environmentId: down.environmentId })).filter((e) => e.type === type);

/** A downstream authorization request up to its interaction; what the token exchange needs later. */
async function interaction(jar: CookieJar) {
  const checks = { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: client.randomState(), expectedNonce: client.randomNonce() };
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
  });
  const authorize = await jar.fetch(url);
  expect(authorize.status).toBe(303);
  return { at: new URL(authorize.headers.get('location')!, url).href, checks };
}

/** Downstream sign-in through the connection: upstream pages with `upJar`, back to the downstream's callback URL. */
async function upstreamLeg(downJar: CookieJar, upJar: CookieJar, connectionId: string, email: string) {
  const { at, checks } = await interaction(downJar);
  const start = await downJar.fetch(`${at}/sso/${connectionId}`);
  expect(start.status, await start.clone().text()).toBe(303);
  const upstreamUrl = start.headers.get('location')!;
  const { callback } = await signInThroughPages(upstreamUrl, { userName: email, password: UPSTREAM_PASSWORD }, upJar);
  return { callback, checks, upstreamUrl };
}

/** The whole sign-in: the tokens the downstream client gets, and its ID token's claims. */
async function ssoSignIn(connectionId: string, email: string, upJar = new CookieJar()) {
  const downJar = new CookieJar();
  const { callback, checks } = await upstreamLeg(downJar, upJar, connectionId, email);
  const back = await signInThroughPages(callback.href, { userName: '', password: '' }, downJar);
  const tokens = await client.authorizationCodeGrant(rp, back.callback, checks);
  return { tokens, claims: tokens.claims()!, upJar };
}

describe('SSO through an upstream OpenID provider', () => {
  it('creates the user on the first sign-in, finds it by its identity on the next, each evented and audited', async () => {
    const up = await upstreamOidc(t, token, down);
    const before = await counts();
    const first = await ssoSignIn(up.connectionId, up.email);
    expect(first.claims.amr).toEqual(['fed']);
    const userId = first.claims.sub;
    expect(await counts()).toEqual({ users: before.users + 1, identities: before.identities + 1 });
    const user = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/directory/users/${userId}`,
        headers: { authorization: `Bearer ${token}` },
      })
    ).json().user;
    expect(user).toMatchObject({ userName: up.email, displayName: `User ${up.email}`, emails: [{ value: up.email, type: 'work' }], active: true });
    expect((await eventsOf('directory.user.created')).map((e) => (e.data.user as { id: string }).id)).toEqual([userId]);
    expect((await eventsOf('user.linked')).map((e) => e.data)).toEqual([
      { userId, connectionId: up.connectionId, providerId: 'oidc', subject: up.user.id, email: up.email, via: 'jit' },
    ]);

    // Signed in upstream already: the second sign-in finds the identity, links nothing and creates nobody.
    const second = await ssoSignIn(up.connectionId, up.email, first.upJar);
    expect(second.claims.sub).toBe(userId);
    expect(await counts()).toEqual({ users: before.users + 1, identities: before.identities + 1 });
    expect(await eventsOf('user.linked')).toHaveLength(1);
    const signedIn = await eventsOf('user.signed_in');
    expect(signedIn.map((e) => e.data)).toEqual([
      { userId, clientId: down.clientId, amr: ['fed'], ip: '127.0.0.1', remember: false, secondFactor: null, connectionId: up.connectionId },
      { userId, clientId: down.clientId, amr: ['fed'], ip: '127.0.0.1', remember: false, secondFactor: null, connectionId: up.connectionId },
    ]);
    const audit = await auditEntries(t, { tenantId: down.tenantId }, { resourceId: userId });
    expect(audit.map((a) => a.action)).toEqual(['directory.user.create', 'user.link', 'user.signed_in', 'user.consented', 'user.signed_in']);
  });

  it('links an existing user with the email the upstream verified', async () => {
    const up = await upstreamOidc(t, token, down);
    const existing = await directoryUser(t, down.environmentId, up.email);
    const before = await counts();
    const { claims } = await ssoSignIn(up.connectionId, up.email);
    expect(claims.sub).toBe(existing.id);
    expect(await counts()).toEqual({ users: before.users, identities: before.identities + 1 });
    expect((await eventsOf('user.linked')).map((e) => e.data.via)).toEqual(['email']);
    expect(await eventsOf('directory.user.created')).toEqual([]);
  });

  it('refuses a callback whose state is unknown or used, with an audit entry and nothing changed', async () => {
    const up = await upstreamOidc(t, token, down);
    const downJar = new CookieJar();
    const { callback } = await upstreamLeg(downJar, new CookieJar(), up.connectionId, up.email);
    const before = await counts();
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-a-state');
    const unknown = await downJar.fetch(forged);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('could not be accepted');
    expect(await counts()).toEqual(before);

    const ok = await downJar.fetch(callback);
    expect(ok.status).toBe(303);
    const replay = await downJar.fetch(callback);
    expect(replay.status).toBe(400);
    const failed = await eventsOf('user.sign_in_failed');
    expect(failed.map((e) => [e.data.reason, e.data.connectionId])).toEqual([
      ['state_unknown', null],
      ['state_consumed', up.connectionId],
    ]);
    const audit = (await auditEntries(t, { tenantId: down.tenantId }, { action: 'user.sign_in_failed' })).filter((a) => a.environmentId === down.environmentId);
    expect(audit).toHaveLength(2);
  });

  it('refuses a new user when the connection is link_only', async () => {
    const up = await upstreamOidc(t, token, down, { provisioning: 'link_only' });
    const downJar = new CookieJar();
    const { callback } = await upstreamLeg(downJar, new CookieJar(), up.connectionId, up.email);
    const before = await counts();
    const res = await downJar.fetch(callback);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('There is no account for you here yet.');
    expect(await counts()).toEqual(before);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['provisioning_refused']);
  });

  it('refuses a deactivated user, an unverified email another user has, a cancel upstream and an expired state', async () => {
    const up = await upstreamOidc(t, token, down);
    // The user cancels on the upstream's consent page (before any consent of theirs): the upstream answers access_denied.
    const downJar = new CookieJar();
    const { at } = await interaction(downJar);
    const start = await downJar.fetch(`${at}/sso/${up.connectionId}`);
    const cancelled = await signInThroughPages(start.headers.get('location')!, { userName: up.email, password: UPSTREAM_PASSWORD, consent: 'cancel' });
    expect(cancelled.callback.searchParams.get('error')).toBe('access_denied');
    // The downstream client hears access_denied too (the interaction ends, as the pages' Cancel does).
    const ended = await signInThroughPages(cancelled.callback, { userName: '', password: '' }, downJar);
    expect(ended.pages).toEqual([]);
    expect(`${ended.callback.origin}${ended.callback.pathname}`).toBe(REDIRECT_URI);
    expect(ended.callback.searchParams.get('error')).toBe('access_denied');
    expect(ended.callback.searchParams.get('error_description')).toBe('The user cancelled the sign-in at the identity provider.');
    // Any other upstream error keeps the refusal page (the user may go back and pick another way).
    const failing = await upstreamLeg(new CookieJar(), new CookieJar(), up.connectionId, up.email);
    const broken = new URL(failing.callback);
    broken.searchParams.delete('code');
    broken.searchParams.set('error', 'temporarily_unavailable');
    const refused = await fetch(broken, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('could not be accepted');

    const users = `/v1/tenants/${down.tenantId}/environments/${down.environmentId}/directory/users`;
    const { claims } = await ssoSignIn(up.connectionId, up.email);
    const deactivated = await t.app.inject({ method: 'POST', url: `${users}/${claims.sub}/deactivate`, headers: bearer(token) });
    expect(deactivated.statusCode).toBe(200);
    const leg = await upstreamLeg(new CookieJar(), new CookieJar(), up.connectionId, up.email);
    const inactive = await fetch(leg.callback, { redirect: 'manual' });
    expect(inactive.status).toBe(400);
    expect(await inactive.text()).toContain('This account cannot sign in.');

    // An upstream user whose email is not verified there, while a downstream user has that email.
    const upUsers = `/v1/tenants/${down.tenantId}/environments/${up.environmentId}/directory/users`;
    const email = `unverified-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = await t.app.inject({ method: 'POST', url: upUsers, headers: bearer(token), payload: { userName: email, emails: [{ value: email }] } });
    await setPassword(t, token, down.tenantId, up.environmentId, created.json().user.id, UPSTREAM_PASSWORD);
    const holder = await directoryUser(t, down.environmentId, email);
    const conflict = await fetch((await upstreamLeg(new CookieJar(), new CookieJar(), up.connectionId, email)).callback, { redirect: 'manual' });
    expect(conflict.status).toBe(400);
    expect(await conflict.text()).toContain('An account with your email exists already.');

    const late = await upstreamLeg(new CookieJar(), new CookieJar(), up.connectionId, up.email);
    await t.pool.query(sql.unsafe`UPDATE sso_states SET expires_at = now() - interval '1 second' WHERE id = ${late.callback.searchParams.get('state')}`);
    const before = await counts();
    expect((await fetch(late.callback, { redirect: 'manual' })).status).toBe(400);
    expect(await counts()).toEqual(before);

    const failed = await eventsOf('user.sign_in_failed');
    expect(failed.map((e) => [e.data.reason, e.data.userId])).toEqual([
      ['upstream_cancelled', null],
      ['upstream_error', null],
      ['inactive', claims.sub],
      ['email_conflict', holder.id],
      ['expired', null],
    ]);
    expect(failed.every((e) => e.data.connectionId === up.connectionId && e.data.clientId === down.clientId)).toBe(true);
  });

  it('says the identity provider cannot be reached when its discovery fails, and an unknown connection is not found', async () => {
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'oidc', {
      issuer: 'http://127.0.0.1:9/nothing',
      clientId: 'x',
      clientSecret: 'y',
    });
    const jar = new CookieJar();
    const { at } = await interaction(jar);
    const unreachable = await jar.fetch(`${at}/sso/${connectionId}`);
    expect(unreachable.status).toBe(502);
    expect(await unreachable.text()).toContain('The identity provider could not be reached.');
    const unknown = await jar.fetch(`${at}/sso/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This sign-in connection does not exist or is not active.');
    const otherInteraction = await new CookieJar().fetch(`${at}/sso/${connectionId}`);
    expect(otherInteraction.status).toBe(400);
    expect(await otherInteraction.text()).toContain('This sign-in expired or is not valid.');
    expect(
      await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM sso_states WHERE environment_id = ${down.environmentId}`),
    ).toBe(0);
  });

  it('refuses an ID token not signed by the key the upstream publishes', async () => {
    const upstream = await scriptedIssuer();
    try {
      const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'oidc', {
        issuer: upstream.issuer,
        clientId: 'rp',
        clientSecret: 's',
      });
      const signIn = async (forged: boolean) => {
        const jar = new CookieJar();
        const { at } = await interaction(jar);
        const start = new URL((await jar.fetch(`${at}/sso/${connectionId}`)).headers.get('location')!);
        expect(start.origin + start.pathname).toBe(`${upstream.issuer}/auth`);
        expect(start.searchParams.get('code_challenge_method')).toBe('S256');
        upstream.answer('alice', 'rp', start.searchParams.get('nonce')!, forged);
        const callback = new URL(start.searchParams.get('redirect_uri')!);
        callback.search = new URLSearchParams({ code: 'c', state: start.searchParams.get('state')! }).toString();
        return jar.fetch(callback);
      };
      const before = await counts();
      expect((await signIn(true)).status).toBe(400);
      expect(await counts()).toEqual(before);
      expect((await signIn(false)).status).toBe(303);
      expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['invalid_response']);
      expect((await eventsOf('user.linked')).map((e) => e.data.subject)).toEqual(['alice']);
    } finally {
      await upstream.close();
    }
  });
});
