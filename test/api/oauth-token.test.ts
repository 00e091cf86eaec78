import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('POST /v1/oauth/token', () => {
  it('issues an ES256 JWT for client_secret_post in a form body, with no-store', async () => {
    const { clientId, clientSecret } = t.credentials;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      ...form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: '*' });
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ iss: t.config.publicBaseUrl, aud: `${t.config.publicBaseUrl}/v1`, org: t.credentials.organizationId, scope: '*' });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(typeof claims.jti).toBe('string');
    const { kid, alg } = decodeProtectedHeader(body.access_token);
    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(alg).toBe('ES256');
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(kid);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('accepts client_secret_basic with a JSON body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { authorization: basic(t.credentials.clientId, t.credentials.clientSecret) },
      payload: { grant_type: 'client_credentials' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('narrows the token to the requested scope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      ...form({ grant_type: 'client_credentials', client_id: t.credentials.clientId, client_secret: t.credentials.clientSecret, scope: 'tenants:read' }),
    });
    expect(res.json().scope).toBe('tenants:read');
    const token = res.json().access_token;
    const read = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: { authorization: `Bearer ${token}` } });
    expect(read.statusCode).toBe(200);
    const write = await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: { authorization: `Bearer ${token}` }, payload: { name: 'x' } });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ code: 'auth.insufficient_scope', error: expect.stringContaining('tenants:write') });
    expect(write.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  it.each([
    ['wrong secret', { grant_type: 'client_credentials', client_id: 'bootstrap-admin', client_secret: 'adsa_nope' }, 401, 'invalid_client'],
    ['unknown client', { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'adsa_nope' }, 401, 'invalid_client'],
    ['no credentials', { grant_type: 'client_credentials' }, 401, 'invalid_client'],
    ['no grant type', { client_id: 'bootstrap-admin', client_secret: 'x' }, 400, 'invalid_request'],
    ['password grant', { grant_type: 'password', username: 'a', password: 'b' }, 400, 'unsupported_grant_type'],
    ['unknown scope', { grant_type: 'client_credentials', scope: 'nope:read' }, 400, 'invalid_scope'],
  ])('answers %s with an RFC 6749 error', async (_name, fields, status, error) => {
    const withSecret = 'scope' in fields ? { ...fields, client_id: t.credentials.clientId, client_secret: t.credentials.clientSecret } : fields;
    const res = await t.app.inject({ method: 'POST', url: '/v1/oauth/token', ...form(withSecret as Record<string, string>) });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error, error_description: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses a scope the service account does not hold', async () => {
    const admin = await t.token();
    const created = await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${t.credentials.organizationId}/service-accounts`,
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: 'reader', scopes: ['tenants:read'] },
    });
    const { serviceAccount, clientSecret } = created.json();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      ...form({ grant_type: 'client_credentials', client_id: serviceAccount.clientId, client_secret: clientSecret, scope: 'tenants:write' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_scope');
  });

  it('answers a wrong Basic secret with 401 and WWW-Authenticate: Basic', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { authorization: basic(t.credentials.clientId, 'wrong') },
      payload: { grant_type: 'client_credentials' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
  });
});
