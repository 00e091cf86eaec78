// A signed-in user changes their own password at `POST {issuer}/account/password` with an access token the
// environment issued to them: the current password is checked (argon2), the new one through the password policy;
// audited and evented; wrong current passwords are limited per user; tokens without a user, from another
// environment, expired or unknown are refused; a user without a password or whose domain requires SSO cannot.
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { codeFlow, directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, setPassword, signInThroughPages } from '../helpers/sign-in.ts';
import { samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection } from '../helpers/upstream-oidc.ts';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple battery horse';
let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t);
  rp = await relyingParty(env.issuer, env.clientId, env.clientSecret);
});
afterAll(() => t.close());

const path = (environmentId = env.environmentId) => `/v1/oidc/${environmentId}/account/password`;
const change = (accessToken: string | null, payload: object, headers: Record<string, string> = {}, environmentId?: string) =>
  t.app.inject({ method: 'POST', url: path(environmentId), headers: { ...(accessToken ? bearer(accessToken) : {}), ...headers }, payload });
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const oauthError = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as { error?: string } | null;
  return error?.error ?? null;
};

/** A user with a password, signed in through the pages: the user and their tokens. */
async function signedIn(password = PASSWORD) {
  const user = await directoryUser(t, env.environmentId);
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, password);
  const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password }, { scope: 'openid email offline_access', prompt: 'consent' });
  return { user, tokens };
}

const signsIn = (userName: string, password: string) =>
  signInThroughPages(
    client.buildAuthorizationUrl(rp, {
      redirect_uri: 'http://127.0.0.1:9/callback',
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    }),
    { userName, password },
  ).then(
    () => true,
    (error: Error) => (/sign-in refused/.test(error.message) ? false : Promise.reject(error)),
  );

describe('POST {issuer}/account/password', () => {
  it('changes the password of the token’s user: 204, the old password no longer signs in, the new one does; audited and evented', async () => {
    const { user, tokens } = await signedIn();
    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');

    expect(await signsIn(user.userName, PASSWORD)).toBe(false);
    expect(await signsIn(user.userName, NEW_PASSWORD)).toBe(true);

    const [event] = await eventsOf('user.password_changed');
    expect(event).toMatchObject({ actor: { type: 'user', id: user.id }, data: { userId: user.id, clientId: env.clientId, signedOutOtherSessions: false } });
    expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);
    const [audit] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.password_changed', resourceId: user.id });
    expect(audit).toMatchObject({ actor: { type: 'user', id: user.id }, resource: { type: 'user', id: user.id }, environmentId: env.environmentId });
    // The other sessions are kept by default: the refresh token still works.
    expect(await client.refreshTokenGrant(rp, tokens.refresh_token!)).toHaveProperty('access_token');
  });

  it('refuses a wrong current password with 400 naming body.currentPassword, evented as user.password_change_failed, nothing changed', async () => {
    const { user, tokens } = await signedIn();
    const res = await change(tokens.access_token, { currentPassword: 'not my password', newPassword: NEW_PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid request: body.currentPassword is not the user’s current password.',
      code: 'account.wrong_password',
      requestId: expect.any(String),
      details: [{ path: 'body.currentPassword', message: 'is not the user’s current password' }],
    });
    expect(await signsIn(user.userName, PASSWORD)).toBe(true);
    expect((await eventsOf('user.password_change_failed')).map((e) => e.data)).toEqual([
      { userId: user.id, clientId: env.clientId, reason: 'wrong_password', ip: expect.any(String) },
    ]);
    expect(await auditEntries(t, { tenantId: env.tenantId }, { action: 'user.password_change_failed', resourceId: user.id })).toHaveLength(1);
    expect(await eventsOf('user.password_changed')).toEqual([]);
  });

  it('refuses a new password the policy refuses with 400 password.<code> naming body.newPassword', async () => {
    const { tokens } = await signedIn();
    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid request: body.newPassword must be at least 8 characters long.',
      code: 'password.too_short',
      requestId: expect.any(String),
      details: [{ path: 'body.newPassword', message: 'must be at least 8 characters long' }],
    });
    expect(await eventsOf('user.password_changed')).toEqual([]);
  });

  it('refuses a missing or mistyped field, and an unknown one, with 400 naming it', async () => {
    const { tokens } = await signedIn();
    const cases: [object, string][] = [
      [{ currentPassword: PASSWORD }, 'body.newPassword'],
      [{ currentPassword: 42, newPassword: NEW_PASSWORD }, 'body.currentPassword'],
      [{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, signOutOtherSessions: 'yes' }, 'body.signOutOtherSessions'],
      [{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, extra: 1 }, 'body.extra'],
    ];
    for (const [payload, field] of cases) {
      const res = await change(tokens.access_token, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('request.invalid');
      expect(res.json().details[0].path, JSON.stringify(payload)).toBe(field);
    }
  });

  it('with signOutOtherSessions ends the user’s other sessions and keeps the one the token came from', async () => {
    const { user, tokens } = await signedIn();
    const other = await codeFlow(t, rp, env.environmentId, { accountId: user.id });
    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, signOutOtherSessions: true });
    expect(res.statusCode, res.body).toBe(204);
    expect(await oauthError(client.refreshTokenGrant(rp, other.tokens.refresh_token!))).toBe('invalid_grant');
    expect((await change(other.tokens.access_token, { currentPassword: NEW_PASSWORD, newPassword: PASSWORD })).statusCode).toBe(401);
    expect(await client.refreshTokenGrant(rp, tokens.refresh_token!)).toHaveProperty('access_token');
    expect((await eventsOf('session.revoked')).map((e) => e.actor)).toEqual([{ type: 'user', id: user.id }]);
    const [event] = await eventsOf('user.password_changed');
    expect(event!.data).toMatchObject({ signedOutOtherSessions: true });
  });

  it('limits wrong current passwords per user: the sixth attempt within 15 minutes is 429, even with the right password', async () => {
    const { user, tokens } = await signedIn();
    const neighbour = await signedIn();
    for (let i = 0; i < 5; i++) {
      expect((await change(tokens.access_token, { currentPassword: `wrong ${i} password`, newPassword: NEW_PASSWORD })).statusCode).toBe(400);
    }
    const limited = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'rate_limit.exceeded' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await signsIn(user.userName, PASSWORD)).toBe(true);
    // Another user is not held back.
    expect((await change(neighbour.tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).statusCode).toBe(204);
  });

  it('refuses a token without a user (client credentials) with 403', async () => {
    const credentials = await client.clientCredentialsGrant(rp, { scope: 'openid' });
    const res = await change(credentials.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'account.user_required' });
  });

  it('refuses a missing, unknown, expired or other environment’s token with 401 and WWW-Authenticate', async () => {
    const { tokens } = await signedIn();
    const missing = await change(null, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="iam"');
    expect(missing.json()).toMatchObject({ code: 'auth.missing_token' });

    const elsewhere = await oidcEnvironment(t);
    const foreign = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, {}, elsewhere.environmentId);
    const unknown = await change('not-a-token-of-this-environment', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    await t.pool.query(sql.unsafe`
      UPDATE oidc_payloads SET expires_at = now() - interval '1 second',
        payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1))
      WHERE environment_id = ${env.environmentId} AND model = 'AccessToken'`);
    const expired = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    for (const res of [foreign, unknown, expired]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="iam", error="invalid_token"/);
      expect(res.json()).toMatchObject({ code: 'auth.invalid_token' });
    }
    expect(await eventsOf('user.password_changed')).toEqual([]);
  });

  it('refuses the token of a deactivated user, and a DPoP-bound token (no proof of possession is checked here), with 401', async () => {
    const { user, tokens } = await signedIn();
    const dpop = client.getDPoPHandle(rp, await client.randomDPoPKeyPair());
    const bound = await codeFlow(t, rp, env.environmentId, { accountId: user.id }, {}, { dpop });
    expect(bound.tokens.token_type).toBe('dpop');
    const dpopRes = await change(bound.tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(dpopRes.statusCode).toBe(401);
    expect(dpopRes.json().error).toBe('The access token is not valid here: sender-constrained tokens are not accepted here.');

    await t.pool.query(sql.unsafe`UPDATE users SET active = false WHERE environment_id = ${env.environmentId} AND id = ${user.id}`);
    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="iam", error="invalid_token"/);
    expect(await eventsOf('user.password_changed')).toEqual([]);
  });

  it('answers 409 no_password to a user without a password (passkey-only, SSO-provisioned)', async () => {
    const user = await directoryUser(t, env.environmentId);
    const { tokens } = await codeFlow(t, rp, env.environmentId, { accountId: user.id, amr: ['webauthn'] });
    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'account.no_password' });
  });

  it('answers 403 sso_required to a user whose email domain must sign in through SSO', async () => {
    const domain = `acme-${crypto.randomUUID().slice(0, 8)}.com`;
    const user = await directoryUser(t, env.environmentId, `jane@${domain}`);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: PASSWORD });
    const added = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/domains`,
      headers: bearer(token),
      payload: { domain, validationMethod: 'dns_txt' },
    });
    expect(added.statusCode, added.body).toBe(201);
    await t.pool.query(sql.unsafe`UPDATE tenant_domains SET verified = true, validated_at = now() WHERE tenant_id = ${env.tenantId} AND domain = ${domain}`);
    await saveConnection(t, token, env.tenantId, env.environmentId, 'saml', {
      metadataXml: samlIdp().metadataXml,
      domains: [domain],
      requiredForDomains: true,
    });

    const res = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'account.sso_required' });
  });

  it('answers browsers as userinfo does: preflight for any origin, the request only from an origin of the client’s redirect URIs', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: path(),
      headers: { origin: 'http://127.0.0.1:9', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'http://127.0.0.1:9',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization,content-type',
      'access-control-max-age': '3600',
    });

    const { user, tokens } = await signedIn();
    const foreign = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'account.origin_not_allowed' });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(await signsIn(user.userName, PASSWORD)).toBe(true);

    const allowed = await change(tokens.access_token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { origin: 'http://127.0.0.1:9' });
    expect(allowed.statusCode, allowed.body).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('http://127.0.0.1:9');
    expect(allowed.headers['access-control-expose-headers']).toBe('WWW-Authenticate, Password-Warning');
  });
});
