import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFlow, createOidcClient, directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let config: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  env = await oidcEnvironment(t);
  config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
});
afterAll(() => t.close());

describe('client credentials', () => {
  it('issues an access token to a client authenticated with client_secret_basic, which introspects as active', async () => {
    const tokens = await client.clientCredentialsGrant(config);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    const introspection = await client.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, client_id: env.clientId, token_type: 'Bearer', iss: env.issuer });
  });

  it('refuses a wrong secret with RFC 6749 invalid_client JSON', async () => {
    const res = await fetch(`${env.issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${env.clientId}:wrong`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('refuses an inactive client and a client of another environment', async () => {
    const inactive = await createOidcClient(t, env.environmentId, { active: false });
    const other = await oidcEnvironment(t);
    for (const [issuer, c] of [
      [env.issuer, inactive],
      [env.issuer, other],
    ] as const) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    }
    // The same client works at its own issuer.
    const own = await relyingParty(other.issuer, other.clientId, other.clientSecret);
    await expect(client.clientCredentialsGrant(own)).resolves.toMatchObject({ token_type: 'bearer' });
  });
});

describe('authorization code with PKCE', () => {
  it("signs a directory user in: an ES256 ID token verified against the JWKS, with the scopes' claims", async () => {
    const user = await directoryUser(t, env.environmentId);
    const { tokens } = await codeFlow(t, config, env.environmentId, { accountId: user.id });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const idToken = tokens.id_token as string;
    expect(decodeProtectedHeader(idToken).alg).toBe('ES256');
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${env.issuer}/jwks`)), { issuer: env.issuer, audience: env.clientId });
    expect(payload).toMatchObject({ sub: user.id, email: user.emails[0]?.value, email_verified: true, preferred_username: user.userName, amr: ['pwd'] });
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(userinfo).toMatchObject({ sub: user.id, email: user.emails[0]?.value, name: user.displayName });
  });

  it('signs ID tokens with RS256 for a client that asks for it', async () => {
    const rs = await createOidcClient(t, env.environmentId, { idTokenSignedResponseAlg: 'RS256' });
    const rsConfig = await relyingParty(env.issuer, rs.clientId, rs.clientSecret, { id_token_signed_response_alg: 'RS256' });
    const user = await directoryUser(t, env.environmentId);
    const { tokens } = await codeFlow(t, rsConfig, env.environmentId, { accountId: user.id });
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe('RS256');
  });

  it('refuses an authorization request without PKCE with an RFC 6749 error at the redirect URI', async () => {
    const noPkce = client.buildAuthorizationUrl(config, { redirect_uri: 'http://127.0.0.1:9/callback', scope: 'openid', state: 's' });
    const res = await fetch(noPkce, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') as string);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'invalid_request', state: 's' });
    expect(location.searchParams.get('error_description')).toBe('Authorization Server policy requires PKCE to be used for this request');
  });
});
