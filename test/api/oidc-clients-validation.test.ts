// Every rule a registered or updated OIDC client must satisfy, one case each: a 400 `request.invalid` naming the field
// in `error` and `details`, and nothing stored. The cases that pass show the edges the rules leave open.
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
let web: string;
let m2m: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  const project = async (type: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/projects`,
      headers: bearer(token),
      payload: { name: `A ${type} app`, type },
    });
    return `/v1/tenants/${t.credentials.tenantId}/environments/${res.json().environments[0].id}/oidc/clients`;
  };
  web = await project('web');
  m2m = await project('m2m');
});
afterAll(() => t.close());

const post = (body: object, url = web) =>
  t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { clientName: 'App', redirectUris: ['https://app.example.com/cb'], ...body } });
const count = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: bearer(token) })).json().total as number;

const ecJwk = async () => exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey);

type Case = [name: string, body: object, path: string, message: string, url?: 'm2m'];
const CASES: Case[] = [
  ['a redirect URI over http to a host that is not loopback', { redirectUris: ['http://app.example.com/cb'] }, 'body.redirectUris.0', 'must use https'],
  ['a redirect URI with a fragment', { redirectUris: ['https://app.example.com/cb#x'] }, 'body.redirectUris.0', 'fragment'],
  ['a redirect URI with a wildcard', { redirectUris: ['https://app.example.com/cb', 'https://*.example.com/cb'] }, 'body.redirectUris.1', 'wildcard'],
  ['a relative redirect URI', { redirectUris: ['/cb'] }, 'body.redirectUris.0', 'absolute'],
  ['a redirect URI with user credentials', { redirectUris: ['https://u:p@app.example.com/cb'] }, 'body.redirectUris.0', 'credentials'],
  ['a private-use scheme for a confidential client', { redirectUris: ['com.example.app:/cb'] }, 'body.redirectUris.0', 'public (none) clients only'],
  [
    'a private-use scheme not in reverse domain notation',
    { tokenEndpointAuthMethod: 'none', redirectUris: ['myapp:/cb'] },
    'body.redirectUris.0',
    'reverse domain notation',
  ],
  [
    'a post-logout redirect URI over http',
    { postLogoutRedirectUris: ['https://app.example.com/bye', 'http://evil.example.com'] },
    'body.postLogoutRedirectUris.1',
    'must use https',
  ],
  ['a back-channel logout URI over http', { backchannelLogoutUri: 'http://app.example.com/logout' }, 'body.backchannelLogoutUri', 'must use https'],
  ['an unknown grant type', { grantTypes: ['implicit'] }, 'body.grantTypes.0', 'Invalid option'],
  ['client_credentials outside an m2m project', { grantTypes: ['client_credentials'], redirectUris: [] }, 'body.grantTypes', 'not m2m'],
  [
    'client_credentials for a public client',
    { grantTypes: ['client_credentials'], tokenEndpointAuthMethod: 'none' },
    'body.grantTypes',
    'public client',
    'm2m',
  ],
  ['refresh_token without authorization_code', { grantTypes: ['client_credentials', 'refresh_token'] }, 'body.grantTypes', 'authorization_code', 'm2m'],
  ['an unknown response type', { responseTypes: ['token'] }, 'body.responseTypes.0', 'expected "code"'],
  ['authorization_code without response type code', { responseTypes: [] }, 'body.responseTypes', 'must include code'],
  [
    'response type code without authorization_code',
    { grantTypes: ['client_credentials'], responseTypes: ['code'] },
    'body.responseTypes',
    'authorization_code',
    'm2m',
  ],
  ['a scope with a space', { scopes: ['openid', 'read write'] }, 'body.scopes.1', 'scope token'],
  ['a scope with a quote', { scopes: ['a"b'] }, 'body.scopes.0', 'scope token'],
  ['an unknown auth method', { tokenEndpointAuthMethod: 'tls_client_auth' }, 'body.tokenEndpointAuthMethod', 'Invalid option'],
  ['private_key_jwt without keys', { tokenEndpointAuthMethod: 'private_key_jwt' }, 'body.jwks', 'is required for private_key_jwt'],
  ['a private key member in jwks', { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'body.jwks.keys.0.k', 'private key member'],
  ['PKCE off for a public client', { tokenEndpointAuthMethod: 'none', requirePkce: false }, 'body.requirePkce', 'must be true for a public client'],
  ['authorization_code without a redirect URI', { redirectUris: [] }, 'body.redirectUris', 'at least one URI'],
  ['an ID token algorithm other than ES256 or RS256', { idTokenSignedResponseAlg: 'HS256' }, 'body.idTokenSignedResponseAlg', 'Invalid option'],
  ['a logo URI that is not http(s)', { logoUri: 'javascript:alert(1)' }, 'body.logoUri', 'http or https'],
  [
    'an Agent Sign-In client asking for refresh_token',
    { agentSignIn: true, grantTypes: ['authorization_code', 'refresh_token'] },
    'body.grantTypes',
    'Agent Sign-In',
  ],
  ['an Agent Sign-In client without PKCE', { agentSignIn: true, requirePkce: false }, 'body.requirePkce', 'Agent Sign-In'],
  ['an Agent Sign-In client asking for offline_access', { agentSignIn: true, scopes: ['openid', 'offline_access'] }, 'body.scopes.1', 'no refresh token'],
  ['no clientName', { clientName: undefined }, 'body.clientName', ''],
  ['an unknown field', { secret: 'mine' }, 'body.secret', 'not a known field'],
];

describe('OIDC client rules', () => {
  it.each(CASES)('refuses %s', async (_name, body, path, message, where) => {
    const url = where === 'm2m' ? m2m : web;
    const before = await count(url);
    const res = await post(body, url);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'request.invalid', error: expect.stringContaining(path) });
    expect(res.json().details).toContainEqual({ path, message: expect.stringContaining(message) });
    expect(await count(url)).toBe(before);
  });

  it('allows loopback http, a private-use scheme for a public client, and PKCE off for a confidential one', async () => {
    const loopback = await post({ redirectUris: ['http://127.0.0.1:8123/cb', 'http://[::1]/cb', 'http://localhost:3000/cb'], requirePkce: false });
    expect(loopback.statusCode, loopback.body).toBe(201);
    expect(loopback.json().client.pkceRequired).toBe(false);
    const native = await post({ tokenEndpointAuthMethod: 'none', redirectUris: ['com.example.app:/oauth2redirect'] });
    expect(native.statusCode, native.body).toBe(201);
    const scopes = await post({ scopes: ['openid', 'phone', 'address', 'orders:read', 'https://api.example.com/orders'] });
    expect(scopes.statusCode, scopes.body).toBe(201);
  });

  it('allows client_credentials in an m2m project, with no redirect URI and no response type', async () => {
    const res = await post({ grantTypes: ['client_credentials'], redirectUris: [] }, m2m);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().client).toMatchObject({ grantTypes: ['client_credentials'], responseTypes: [], scopes: ['openid', 'profile', 'email'] });
    expect(res.json().clientSecret).toMatch(/^adoc_/);
  });

  it('stores the public keys of a private_key_jwt client, with their kid, and gives it no secret', async () => {
    const jwk = await ecJwk();
    const res = await post({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...jwk, kid: 'k1' }] } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().clientSecret).toBeUndefined();
    expect(res.json().client).toMatchObject({ secretPrefix: null, jwks: { keys: [{ ...jwk, kid: 'k1', alg: 'ES256', use: 'sig' }] } });
    const url = `${web}/${res.json().client.clientId}`;
    const same = await t.app.inject({ method: 'PATCH', url, headers: bearer(token), payload: { jwks: { keys: [{ ...jwk, kid: 'k1' }] } } });
    expect(same.json().client.updatedAt).toBe(res.json().client.updatedAt);
    const twice = await post({
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: {
        keys: [
          { ...jwk, kid: 'k1' },
          { ...(await ecJwk()), kid: 'k1' },
        ],
      },
    });
    expect(twice.json().details).toEqual([{ path: 'body.jwks.keys.1.kid', message: expect.stringContaining('kid') }]);
  });

  it('checks an update against the client it leaves, and refuses agentSignIn there', async () => {
    const { client } = (await post({})).json();
    const url = `${web}/${client.clientId}`;
    const patch = (payload: object) => t.app.inject({ method: 'PATCH', url, headers: bearer(token), payload });
    const pkce = await patch({ tokenEndpointAuthMethod: 'none', requirePkce: false });
    expect(pkce.statusCode).toBe(400);
    expect(pkce.json().details).toEqual([{ path: 'body.requirePkce', message: expect.stringContaining('public client') }]);
    const uris = await patch({ redirectUris: ['https://ok.example.com/cb', 'http://app.example.com/cb'] });
    expect(uris.json().details).toEqual([{ path: 'body.redirectUris.1', message: expect.stringContaining('https') }]);
    const agent = await patch({ agentSignIn: true });
    expect(agent.statusCode).toBe(400);
    expect(agent.json().details).toEqual([{ path: 'body.agentSignIn', message: 'is not a known field' }]);
    const after = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(after.json().client).toEqual(client);
  });
});
