import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  codeFlow,
  createOidcClient,
  directoryUser,
  oidcEnvironment,
  REDIRECT_URI,
  relyingParty,
  startOidcApp,
  type OidcTestApp,
} from '../helpers/oidc.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let config: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  env = await oidcEnvironment(t);
  config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
});
afterAll(() => t.close());

const basic = (id: string, secret: string | null) => `Basic ${Buffer.from(`${id}:${secret ?? ''}`).toString('base64')}`;
const token = (body: Record<string, string>, authorization = basic(env.clientId, env.clientSecret)) =>
  fetch(`${env.issuer}/token`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });

/** A code for a new user, not yet redeemed, with its verifier. */
async function pendingCode(c = config) {
  const user = await directoryUser(t, env.environmentId);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(c, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorize(t, env.environmentId, url, { accountId: user.id });
  return { code: callback.searchParams.get('code') as string, verifier, user };
}

const json = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.json() });
const JSON_TYPE = 'application/json; charset=utf-8';

describe('OAuth errors are RFC 6749 JSON and change nothing', () => {
  it('a wrong PKCE verifier: invalid_grant', async () => {
    const { code } = await pendingCode();
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: client.randomPKCECodeVerifier() });
    expect(await json(res)).toEqual({ status: 400, type: JSON_TYPE, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
  });

  it('a reused code: invalid_grant, and the tokens the code gave are revoked', async () => {
    const { code, verifier } = await pendingCode();
    const body = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const first = await token(body);
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    expect(await json(await token(body))).toEqual({
      status: 400,
      type: JSON_TYPE,
      body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
    });
    expect(await client.tokenIntrospection(config, access_token)).toEqual({ active: false });
  });

  it('an unregistered redirect URI: answered to the browser, never redirected', async () => {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'https://evil.example.com/cb',
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.headers.get('location')).toBeNull();
    expect(await json(res)).toEqual({
      status: 400,
      type: JSON_TYPE,
      body: { error: 'invalid_redirect_uri', error_description: "redirect_uri did not match any of the client's registered redirect_uris" },
    });
  });

  it('an unknown client at the authorization endpoint: invalid_client, not redirected', async () => {
    const res = await fetch(`${env.issuer}/auth?client_id=nobody&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`, {
      redirect: 'manual',
    });
    expect(await json(res)).toEqual({ status: 400, type: JSON_TYPE, body: { error: 'invalid_client', error_description: 'client is invalid' } });
  });

  it('an unsupported grant type and a missing parameter', async () => {
    expect((await json(await token({ grant_type: 'password', username: 'a', password: 'b' }))).body).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'unsupported grant_type requested',
    });
    expect((await json(await token({ grant_type: 'authorization_code' }))).body).toEqual({
      error: 'invalid_request',
      error_description: "missing required parameter 'code'",
    });
  });

  it('an expired (or unknown) interaction: the resume endpoint refuses it', async () => {
    const res = await fetch(`${env.issuer}/auth/${crypto.randomUUID()}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect((await res.json()) as object).toMatchObject({ error: 'invalid_request' });
  });

  it('a code of a user disabled before it is redeemed: invalid_grant', async () => {
    const { code, verifier, user } = await pendingCode();
    await t.pool.query(sql.unsafe`UPDATE users SET active = false WHERE id = ${user.id}`);
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect((await json(res)).body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('client kinds', () => {
  it('a public client must use PKCE even when the client does not ask for it', async () => {
    const pub = await createOidcClient(t, env.environmentId, { tokenEndpointAuthMethod: 'none', pkceRequired: false, grantTypes: ['authorization_code'] });
    const pubConfig = await relyingParty(env.issuer, pub.clientId, null);
    const url = client.buildAuthorizationUrl(pubConfig, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 's' });
    const location = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('Authorization Server policy requires PKCE to be used for this request');
  });

  it('an Agent Sign-In client: authorization code only, no refresh token, no client credentials', async () => {
    const agent = await createOidcClient(t, env.environmentId, { agentSignIn: true });
    const agentConfig = await relyingParty(env.issuer, agent.clientId, agent.clientSecret);
    const user = await directoryUser(t, env.environmentId);
    const { tokens } = await codeFlow(t, agentConfig, env.environmentId, { accountId: user.id }, { scope: 'openid offline_access' });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toBeUndefined();
    const res = await token({ grant_type: 'client_credentials' }, basic(agent.clientId, agent.clientSecret));
    expect((await json(res)).body).toEqual({ error: 'unauthorized_client', error_description: 'requested grant type is not allowed for this client' });
  });
});
