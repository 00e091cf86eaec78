// Revoking directory sessions and connected apps against the real provider: after a code flow through the
// environment's issuer, revoking the user's session (or its connected app) makes the refresh token unusable and the
// access token inactive at once, and a session revocation logs its clients out over the back channel through the
// back-channel-logout process (a local receiver checks the logout token); an RP that fails does not fail the
// revocation, and is tried again.
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { codeFlow, CookieJar, createOidcClient, directoryUser, endSession, oidcEnvironment, relyingParty, type OidcTestApp } from '../helpers/oidc.ts';
import { startOidcAppWithProcesses } from '../helpers/oidc-processes.ts';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.ts';
import { codeFlowThroughPages, setPassword } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let receiver: Receiver;
let token: string;
beforeAll(async () => {
  t = await startOidcAppWithProcesses('embedded');
  receiver = await startReceiver();
  token = await t.token();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const oauthError = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as { error?: string; status?: number } | null;
  return error && { error: error.error, status: error.status };
};

/** An environment with two clients logging out over the back channel at `/logout/<name>`, and a user signed in to both in one browser. */
async function signedInToTwoClients() {
  const env = await oidcEnvironment(t, { backchannelLogoutUri: `${receiver.url}/logout/a-${crypto.randomUUID()}` });
  const b = await createOidcClient(t, env.environmentId, { backchannelLogoutUri: `${receiver.url}/logout/b-${crypto.randomUUID()}` });
  const user = await directoryUser(t, env.environmentId);
  const rpA = await relyingParty(env.issuer, env.clientId, env.clientSecret);
  const rpB = await relyingParty(env.issuer, b.clientId, b.clientSecret);
  const a = await codeFlow(t, rpA, env.environmentId, { accountId: user.id });
  const second = await codeFlow(t, rpB, env.environmentId, { accountId: user.id }, {}, { jar: a.jar });
  const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
  return { env, user, rpA, rpB, a: a.tokens, b: second.tokens, bClientId: b.clientId, base };
}

const logoutPaths = (clientUri: string) => new URL(clientUri).pathname;

/** Each client's last logout token: signed by the issuer, for the client, the user and the session of its ID token. */
async function expectLogoutTokens(issuer: string, userId: string, clients: [Received[], { id_token?: string }, string][]) {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  for (const [posts, tokens, clientId] of clients) {
    const logoutToken = new URLSearchParams(posts.at(-1)!.body).get('logout_token') as string;
    const { payload } = await jwtVerify(logoutToken, jwks, { issuer, audience: clientId });
    expect(payload).toMatchObject({
      sub: userId,
      sid: decodeJwt(tokens.id_token as string).sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
  }
}

describe('revoking a directory session', () => {
  it('ends its refresh and access tokens at once and logs each client out over the back channel', async () => {
    const { env, user, rpA, rpB, a, b, bClientId, base } = await signedInToTwoClients();
    const listed = await t.app.inject({ method: 'GET', url: `${base}/directory/users/${user.id}/sessions`, headers: bearer(token) });
    const sessions = listed.json().sessions;
    expect(sessions).toEqual([
      expect.objectContaining({
        userId: user.id,
        clientIds: expect.toSatisfy((ids: string[]) => ids.length === 2 && ids.includes(env.clientId) && ids.includes(bClientId)),
        factors: ['pwd'],
        active: true,
      }),
    ]);
    const pathA = logoutPaths((await t.pool.oneFirst(sql.unsafe`SELECT backchannel_logout_uri FROM oidc_clients WHERE client_id = ${env.clientId}`)) as string);
    const pathB = logoutPaths((await t.pool.oneFirst(sql.unsafe`SELECT backchannel_logout_uri FROM oidc_clients WHERE client_id = ${bClientId}`)) as string);
    receiver.script(pathB, 500);

    const res = await t.app.inject({ method: 'DELETE', url: `${base}/directory/users/${user.id}/sessions/${sessions[0].id}`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, sessions: [expect.objectContaining({ id: sessions[0].id, active: false })] });

    expect(await oauthError(client.refreshTokenGrant(rpA, a.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    expect(await oauthError(client.refreshTokenGrant(rpB, b.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    expect(await client.tokenIntrospection(rpA, a.access_token)).toEqual({ active: false });

    // Both clients were told (B answered 500 at first and got the token again); each logout token is signed by the issuer, for the user and the session.
    const posts = (path: string) => receiver.received.filter((r) => r.path === path);
    await expect.poll(() => [posts(pathA).length, posts(pathB).length], { timeout: 20_000 }).toEqual([1, 2]);
    await expectLogoutTokens(env.issuer, user.id, [
      [posts(pathA), a, env.clientId],
      [posts(pathB), b, bClientId],
    ]);
    const events = await tenantEvents(t, env.tenantId, { type: 'session.revoked', environmentId: env.environmentId });
    expect(events.map((e) => e.data)).toEqual([{ session: res.json().sessions[0] }]);
  });

  it("revokes all of a user's sessions, each browser's", async () => {
    const env = await oidcEnvironment(t);
    const user = await directoryUser(t, env.environmentId);
    const rp = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const first = (await codeFlow(t, rp, env.environmentId, { accountId: user.id })).tokens;
    const second = (await codeFlow(t, rp, env.environmentId, { accountId: user.id })).tokens;
    const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/sessions`;
    const res = await t.app.inject({ method: 'DELETE', url, headers: bearer(token) });
    expect(res.json().sessions).toHaveLength(2);
    for (const tokens of [first, second]) {
      expect(await oauthError(client.refreshTokenGrant(rp, tokens.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    }
  });
});

describe('RP-initiated logout (end_session)', () => {
  /** A user signed in to clients A and B in one browser, both logging out over the back channel. */
  async function signedInToTwoClientsInOneBrowser() {
    const env = await oidcEnvironment(t, {
      backchannelLogoutUri: `${receiver.url}/logout/rp-a-${crypto.randomUUID()}`,
      postLogoutRedirectUris: ['http://127.0.0.1:9/signed-out'],
    });
    const b = await createOidcClient(t, env.environmentId, { backchannelLogoutUri: `${receiver.url}/logout/rp-b-${crypto.randomUUID()}` });
    const user = await directoryUser(t, env.environmentId);
    const rpA = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const rpB = await relyingParty(env.issuer, b.clientId, b.clientSecret);
    const jar = new CookieJar();
    const a = (await codeFlow(t, rpA, env.environmentId, { accountId: user.id }, {}, { jar })).tokens;
    const second = (await codeFlow(t, rpB, env.environmentId, { accountId: user.id }, {}, { jar })).tokens;
    const pathOf = async (clientId: string) =>
      logoutPaths((await t.pool.oneFirst(sql.unsafe`SELECT backchannel_logout_uri FROM oidc_clients WHERE client_id = ${clientId}`)) as string);
    return { env, user, rpA, jar, a, second, bClientId: b.clientId, pathA: await pathOf(env.clientId), pathB: await pathOf(b.clientId) };
  }

  /** A's logout through the provider's page: `logout` 'yes' signs the user out, absent ("No") leaves A only. */
  async function logOutOfA(s: Awaited<ReturnType<typeof signedInToTwoClientsInOneBrowser>>, logout?: 'yes') {
    const end = client.buildEndSessionUrl(s.rpA, {
      id_token_hint: s.a.id_token as string,
      post_logout_redirect_uri: 'http://127.0.0.1:9/signed-out',
      state: 'bye',
    });
    const { page, answer: confirmed } = await endSession(s.jar, end, logout);
    expect(page.status).toBe(200);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe('http://127.0.0.1:9/signed-out?state=bye');
    const [session] = (await t.pool.any(sql.unsafe`
      SELECT id, revoked_at IS NOT NULL AS revoked FROM directory_sessions WHERE environment_id = ${s.env.environmentId}`)) as {
      id: string;
      revoked: boolean;
    }[];
    return session!;
  }

  const posts = (path: string) => receiver.received.filter((r) => r.path === path);
  const processesOf = (sessionId: string) =>
    t.pool.anyFirst(sql.unsafe`SELECT workflow_uuid FROM dbos.workflow_status WHERE workflow_uuid LIKE ${`back-channel-logout:${sessionId}:%`} ORDER BY 1`);

  it('ends the session, returns to the client, and logs each client out through the back-channel-logout process', async () => {
    const s = await signedInToTwoClientsInOneBrowser();
    // A is down at first: oidc-provider's own inline send would have told it once and given up.
    receiver.script(s.pathA, 503);
    const session = await logOutOfA(s, 'yes');
    expect(session.revoked).toBe(true);

    // One process per client, named after the directory session; A got the token again after its 503.
    await expect.poll(() => [posts(s.pathA).length, posts(s.pathB).length], { timeout: 20_000 }).toEqual([2, 1]);
    expect(await processesOf(session.id)).toEqual(
      [`back-channel-logout:${session.id}:${s.env.clientId}`, `back-channel-logout:${session.id}:${s.bClientId}`].sort(),
    );
    await expectLogoutTokens(s.env.issuer, s.user.id, [
      [posts(s.pathA), s.a, s.env.clientId],
      [posts(s.pathB), s.second, s.bClientId],
    ]);
  });

  it('signs the logout token with the vanity issuer when the provider serves a vanity host', async () => {
    const path = `/logout/vanity-${crypto.randomUUID()}`;
    const env = await oidcEnvironment(t, { backchannelLogoutUri: `${receiver.url}${path}` });
    const vanityIssuer = `https://login.vanity.example/v1/oidc/${env.environmentId}`;
    // The provider of that host, as the mount picks it for a request on an active vanity domain; the client's
    // back-channel logout outside a request names its process after the sid.
    const provider = await t.app.oidc.get(env.environmentId, 'login.vanity.example');
    const rp = (await provider.Client.find(env.clientId)) as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> };
    await rp.backchannelLogout('vanity-user', 'vanity-sid');

    await expect.poll(() => receiver.received.filter((r) => r.path === path).length, { timeout: 20_000 }).toBe(1);
    const logoutToken = new URLSearchParams(receiver.received.find((r) => r.path === path)!.body).get('logout_token') as string;
    const { payload } = await jwtVerify(logoutToken, createRemoteJWKSet(new URL(`${env.issuer}/jwks`)), { issuer: vanityIssuer, audience: env.clientId });
    expect(payload).toMatchObject({ sub: 'vanity-user', sid: 'vanity-sid' });
    expect(await processesOf('vanity-sid')).toEqual([`back-channel-logout:vanity-sid:${env.clientId}`]);
  });

  it('logs out only the asking client when the user stays signed in ("No"), and keeps the session', async () => {
    const s = await signedInToTwoClientsInOneBrowser();
    const session = await logOutOfA(s);
    expect(session.revoked).toBe(false);

    await expect.poll(() => posts(s.pathA).length, { timeout: 20_000 }).toBe(1);
    await expectLogoutTokens(s.env.issuer, s.user.id, [[posts(s.pathA), s.a, s.env.clientId]]);
    expect(await processesOf(session.id)).toEqual([`back-channel-logout:${session.id}:${s.env.clientId}`]);
    expect(posts(s.pathB)).toEqual([]);
  });
});

describe('revoking a directory session signed in through the pages', () => {
  it("ends that browser's tokens only, when another browser reuses the same consent (grant)", async () => {
    const env = await oidcEnvironment(t);
    const rp = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, 'correct horse battery');
    const signIn = { userName: user.userName, password: 'correct horse battery' };
    const scope = { scope: 'openid profile offline_access', prompt: 'consent' };
    const laptop = await codeFlowThroughPages(rp, signIn, scope);
    // The second browser's sign-in reuses the consent the first one gave: no consent page, the same provider Grant.
    const phone = await codeFlowThroughPages(rp, signIn, { scope: 'openid profile' });
    expect(phone.pages.map((p) => p.kind)).toEqual(['login', 'password']);
    const grantIds = await t.pool.anyFirst(sql.unsafe`
      SELECT DISTINCT grant_id FROM oidc_payloads WHERE environment_id = ${env.environmentId} AND model = 'AccessToken'`);
    expect(grantIds).toHaveLength(1);

    const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/sessions`;
    const sessions = (await t.app.inject({ method: 'GET', url: base, headers: bearer(token) })).json().sessions;
    expect(sessions).toHaveLength(2);
    const laptopSession = sessions[1];
    const res = await t.app.inject({ method: 'DELETE', url: `${base}/${laptopSession.id}`, headers: bearer(token) });
    expect(res.json().sessions).toEqual([expect.objectContaining({ id: laptopSession.id, active: false })]);

    expect(await oauthError(client.refreshTokenGrant(rp, laptop.tokens.refresh_token!))).toEqual({ error: 'invalid_grant', status: 400 });
    expect(await client.tokenIntrospection(rp, laptop.tokens.access_token)).toEqual({ active: false });
    // offline_access needs prompt=consent, so the phone has an access token only: it stays active.
    expect(await client.tokenIntrospection(rp, phone.tokens.access_token)).toMatchObject({ active: true, sub: user.id });
  });
});

describe('revoking a connected app', () => {
  it("ends every grant of the user and client (each browser's): refresh tokens refused, access tokens inactive at once", async () => {
    const env = await oidcEnvironment(t);
    const user = await directoryUser(t, env.environmentId);
    const rp = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const first = (await codeFlow(t, rp, env.environmentId, { accountId: user.id })).tokens;
    const second = (await codeFlow(t, rp, env.environmentId, { accountId: user.id })).tokens;
    // The consent's row, as the sign-in pages write it: it names the provider Grant of the latest consent only.
    await t.pool.query(sql.unsafe`
      INSERT INTO oidc_client_grants (environment_id, client_id, user_id, grant_id, scopes)
      SELECT environment_id, client_id, ${user.id}, grant_id, '{openid}' FROM oidc_payloads
      WHERE environment_id = ${env.environmentId} AND model = 'RefreshToken' ORDER BY expires_at DESC LIMIT 1`);
    const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/connected-apps/revoke`;
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { clientId: env.clientId, userId: user.id } });
    expect(res.json()).toEqual({ success: true });
    for (const tokens of [first, second]) {
      expect(await oauthError(client.refreshTokenGrant(rp, tokens.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
      expect(await client.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    }
  });
});
