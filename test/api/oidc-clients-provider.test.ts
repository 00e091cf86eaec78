// Clients registered through the management API, as the environment's OpenID provider sees them: a client gets tokens
// with the secret shown at register, a rotated-out secret and a deleted client are refused at once, API scopes load,
// and sdk-config's endpoints are the ones the provider's discovery document advertises.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let token: string;
let environmentId: string;
let base: string;

beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${t.credentials.tenantId}/projects`,
    headers: bearer(token),
    payload: { name: 'Robots', type: 'm2m' },
  });
  environmentId = res.json().environments[0].id;
  base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}`;
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: `${base}${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

/** The provider's answer to a client credentials request: status and body. */
async function clientCredentials(clientId: string, secret: string, scope?: string) {
  const res = await fetch(`${t.issuer(environmentId)}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('registered clients at the provider', () => {
  it('gets tokens with the secret of register, then of rotate only; a deleted client gets none', async () => {
    const registered = await api('POST', '/oidc/clients', { clientName: 'Robot', grantTypes: ['client_credentials'] });
    expect(registered.statusCode, registered.body).toBe(201);
    const { client, clientSecret } = registered.json();
    expect(await clientCredentials(client.clientId, clientSecret)).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });

    const rotated = (await api('POST', `/oidc/clients/${client.clientId}/secret`)).json().clientSecret as string;
    expect(await clientCredentials(client.clientId, clientSecret)).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_client' }) });
    expect((await clientCredentials(client.clientId, rotated)).status).toBe(200);

    expect((await api('DELETE', `/oidc/clients/${client.clientId}`)).statusCode).toBe(200);
    expect(await clientCredentials(client.clientId, rotated)).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_client' }) });
  });

  it("ends a deleted client's tokens at once: they no longer introspect as active", async () => {
    const robot = async (clientName: string) => (await api('POST', '/oidc/clients', { clientName, grantTypes: ['client_credentials'] })).json();
    const [issued, server] = [await robot('Deleted'), await robot('Resource server')];
    const { body } = await clientCredentials(issued.client.clientId, issued.clientSecret);
    const introspect = async () => {
      const res = await fetch(`${t.issuer(environmentId)}/token/introspection`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${server.client.clientId}:${server.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token: body.access_token as string }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { active: boolean }).active;
    };
    expect(await introspect()).toBe(true);
    expect((await api('DELETE', `/oidc/clients/${issued.client.clientId}`)).statusCode).toBe(200);
    expect(await introspect()).toBe(false);
  });

  it('authenticates a private_key_jwt client with the public key it registered', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'robot-1' };
    const registered = await api('POST', '/oidc/clients', {
      clientName: 'Signed robot',
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const { clientId } = registered.json().client;
    const tokenUrl = `${t.issuer(environmentId)}/token`;
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'robot-1' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(tokenUrl)
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(privateKey);
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'Bearer' });
  });

  it('loads a client that may ask for API scopes besides the OpenID ones', async () => {
    const registered = await api('POST', '/oidc/clients', { clientName: 'Scoped', grantTypes: ['client_credentials'], scopes: ['openid', 'orders:read'] });
    const { client, clientSecret } = registered.json();
    expect(await clientCredentials(client.clientId, clientSecret)).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
  });

  it('starts a sign-in for a public native client at its private-use scheme and loopback redirect URIs', async () => {
    const { environmentIds } = await newEnvironments(t);
    const url = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentIds[0]}/oidc/clients`;
    const redirectUris = ['com.example.app:/oauth2redirect', 'http://127.0.0.1:8123/cb'];
    const registered = await t.app.inject({
      method: 'POST',
      url,
      headers: bearer(token),
      payload: { clientName: 'Native', tokenEndpointAuthMethod: 'none', redirectUris },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    for (const redirectUri of redirectUris) {
      const query = new URLSearchParams({
        client_id: registered.json().client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${t.issuer(environmentIds[0]!)}/auth?${query}`, { redirect: 'manual' });
      expect(res.status, `${redirectUri}: ${await res.text()}`).toBe(303);
      expect(res.headers.get('location')).toContain('/interaction/');
    }
  });

  it('lets only the clients of a non-empty allowlist start a sign-in', async () => {
    const { environmentIds } = await newEnvironments(t);
    const env = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentIds[0]}`;
    const redirectUri = 'https://app.example.com/cb';
    const register = async (clientName: string) =>
      (await t.app.inject({ method: 'POST', url: `${env}/oidc/clients`, headers: bearer(token), payload: { clientName, redirectUris: [redirectUri] } })).json()
        .client.clientId as string;
    const [listed, other] = [await register('Listed'), await register('Other')];
    const authorize = async (clientId: string) => {
      const query = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${t.issuer(environmentIds[0]!)}/auth?${query}`, { redirect: 'manual' });
      return res.headers.get('location') ?? '';
    };
    expect(await authorize(other)).toContain('/interaction/');
    const put = await t.app.inject({ method: 'PUT', url: `${env}/oidc/client-allowlist`, headers: bearer(token), payload: { clientIds: [listed] } });
    expect(put.statusCode).toBe(200);
    await expect.poll(() => authorize(other), { timeout: 5000, interval: 50 }).toContain('error=unauthorized_client');
    expect(await authorize(listed)).toContain('/interaction/');
  });

  it("gives in sdk-config the endpoints of the provider's discovery document", async () => {
    const { endpoints } = (await api('GET', '/sdk-config')).json();
    const discovery = await fetch(endpoints.discovery);
    expect(discovery.status).toBe(200);
    const metadata = (await discovery.json()) as Record<string, string>;
    expect({
      issuer: metadata.issuer,
      authorization: metadata.authorization_endpoint,
      token: metadata.token_endpoint,
      userinfo: metadata.userinfo_endpoint,
      jwks: metadata.jwks_uri,
      end_session: metadata.end_session_endpoint,
      introspection: metadata.introspection_endpoint,
      revocation: metadata.revocation_endpoint,
      pushed_authorization_request: metadata.pushed_authorization_request_endpoint,
    }).toEqual({
      issuer: endpoints.issuer,
      authorization: endpoints.authorization,
      token: endpoints.token,
      userinfo: endpoints.userinfo,
      jwks: endpoints.jwks,
      end_session: endpoints.end_session,
      introspection: endpoints.introspection,
      revocation: endpoints.revocation,
      pushed_authorization_request: endpoints.pushed_authorization_request,
    });
  });
});
