// RFC 7591 dynamic client registration at an environment's issuer: closed (not advertised, 404) unless the
// environment opens it; open registration (no token, as MCP clients need) stores the client among the environment's
// OIDC clients, enforces PKCE on public clients, and refuses what the clients API refuses.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { authorize, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
beforeAll(async () => {
  t = await startOidcApp();
});
afterAll(() => t?.close());

const REDIRECT = 'http://127.0.0.1:9/callback';
const MCP_CLIENT = {
  client_name: 'My MCP client',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

/** A new environment, its issuer, and `open(boolean)` through the settings API. */
async function environment() {
  const { tenantId, environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const issuer = t.issuer(environmentId);
  const open = async (dynamicRegistration: boolean) => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${tenantId}/environments/${environmentId}/settings/oidc`,
      headers: bearer(await t.token()),
      payload: { dynamicRegistration },
    });
    expect(res.statusCode).toBe(200);
    // Every instance rebuilds the Provider on the NOTIFY: wait until this one advertises the change.
    await expect.poll(async () => (await discovery(issuer)).registration_endpoint !== undefined, { timeout: 10_000, interval: 20 }).toBe(dynamicRegistration);
  };
  return { tenantId, environmentId, issuer, open };
}
const discovery = async (issuer: string) => (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
const register = async (issuer: string, metadata: object) => {
  const res = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Record<string, unknown> };
};
const CLOSED = { error: 'invalid_request', error_description: 'dynamic client registration is not enabled for this environment' };
const Stored = z.object({ name: z.string(), tokenEndpointAuthMethod: z.string(), redirectUris: z.array(z.string()), dynamic: z.boolean() });
const stored = (environmentId: string) =>
  t.pool.any(sql.type(Stored)`
    SELECT name, token_endpoint_auth_method AS "tokenEndpointAuthMethod", redirect_uris AS "redirectUris", dynamically_registered AS dynamic
    FROM oidc_clients WHERE environment_id = ${environmentId}`);

describe('dynamic client registration', () => {
  it('is closed by default: not advertised, and the endpoint answers 404 with an OAuth JSON error', async () => {
    const { environmentId, issuer } = await environment();
    expect((await discovery(issuer)).registration_endpoint).toBeUndefined();
    const res = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(MCP_CLIENT) });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual(CLOSED);
    expect(await stored(environmentId)).toEqual([]);
  });

  it('once opened, registers a public client without a token, listed among the OIDC clients', async () => {
    const { tenantId, environmentId, issuer, open } = await environment();
    await open(true);
    expect((await discovery(issuer)).registration_endpoint).toBe(`${issuer}/reg`);
    const res = await register(issuer, MCP_CLIENT);
    expect(res).toEqual({ status: 201, body: expect.objectContaining({ client_id: expect.any(String), ...MCP_CLIENT }) });
    expect(res.body.client_id).toMatch(/^oc_[0-9A-Za-z]{24}$/);
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.registration_access_token).toBeUndefined();
    expect(await stored(environmentId)).toEqual([{ name: 'My MCP client', tokenEndpointAuthMethod: 'none', redirectUris: [REDIRECT], dynamic: true }]);
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${tenantId}/environments/${environmentId}/oidc/clients`,
      headers: bearer(await t.token()),
    });
    const [event] = await tenantEvents(t, tenantId, { type: 'oidc_client.created', environmentId });
    expect(event).toMatchObject({
      actor: { type: 'system', id: null },
      data: { client: { clientId: res.body.client_id, name: 'My MCP client', dynamicallyRegistered: true, secretPrefix: null } },
    });
    const audit = await auditEntries(t, { tenantId }, { action: 'oidc_client.create', resourceId: (event!.data.client as { id: string }).id });
    expect(audit).toHaveLength(1);
    expect(listed.json().clients).toEqual([
      expect.objectContaining({
        clientId: res.body.client_id,
        name: 'My MCP client',
        redirectUris: [REDIRECT],
        tokenEndpointAuthMethod: 'none',
        dynamicallyRegistered: true,
      }),
    ]);
  });

  it('registers a public native app with a private-use scheme redirect URI, which the provider then sends its code to', async () => {
    const { environmentId, issuer, open } = await environment();
    await open(true);
    const native = { ...MCP_CLIENT, application_type: 'native', redirect_uris: ['com.example.app:/callback'] };
    const res = await register(issuer, native);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: String(res.body.client_id),
      redirect_uri: 'com.example.app:/callback',
      response_type: 'code',
      scope: 'openid',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      prompt: 'none',
    }).toString();
    // No session: prompt=none comes back to the app's own scheme with login_required, so the URI was accepted.
    const { callback } = await authorize(t, environmentId, url, null);
    expect(callback.protocol).toBe('com.example.app:');
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({ error: 'login_required', state: 's' });
  });

  it('enforces PKCE on a registered public client', async () => {
    const { environmentId, issuer, open } = await environment();
    await open(true);
    const { body } = await register(issuer, MCP_CLIENT);
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: String(body.client_id),
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      state: 's',
    }).toString();
    const { callback } = await authorize(t, environmentId, url, null);
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/PKCE/i),
      state: 's',
    });
  });

  it('gives a confidential client its secret once, which then authenticates it', async () => {
    const { issuer, open } = await environment();
    await open(true);
    const { status, body } = await register(issuer, { ...MCP_CLIENT, token_endpoint_auth_method: 'client_secret_basic' });
    expect(status).toBe(201);
    expect(body.client_secret).toMatch(/^adoc_/);
    const introspect = (secret: string) =>
      fetch(`${issuer}/token/introspection`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${String(body.client_id)}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ token: 'not-a-token' }),
      });
    expect(await (await introspect(String(body.client_secret))).json()).toEqual({ active: false });
    expect((await introspect('wrong')).status).toBe(401);
  });

  it('refuses redirect URIs the clients API refuses, other grants than the code flow, jwks_uri; nothing is stored', async () => {
    const { environmentId, issuer, open } = await environment();
    await open(true);
    const cases: [object, string, RegExp][] = [
      [{ redirect_uris: ['http://app.example.com/callback'] }, 'invalid_redirect_uri', /must use https \(http only on a loopback host/],
      [{ redirect_uris: ['com.example.app:/callback'] }, 'invalid_redirect_uri', /must only contain web uris/],
      [
        { application_type: 'native', redirect_uris: ['com.example.app:/callback'], token_endpoint_auth_method: 'client_secret_basic' },
        'invalid_redirect_uri',
        /private-use scheme/,
      ],
      [{ redirect_uris: ['https://*.example.com/callback'] }, 'invalid_redirect_uri', /wildcard/],
      [{ redirect_uris: ['https://app.example.com/callback#x'] }, 'invalid_redirect_uri', /fragment/],
      [{ post_logout_redirect_uris: ['http://app.example.com/'] }, 'invalid_client_metadata', /post_logout_redirect_uris/],
      [{ grant_types: ['authorization_code', 'client_credentials'] }, 'invalid_client_metadata', /client_credentials/],
      [
        { redirect_uris: ['https://app.example.com/callback'], grant_types: ['implicit'], response_types: ['id_token'] },
        'invalid_client_metadata',
        /implicit is not supported/,
      ],
      [{ jwks_uri: 'https://app.example.com/jwks' }, 'invalid_client_metadata', /jwks_uri/],
    ];
    for (const [change, error, description] of cases) {
      const res = await register(issuer, { ...MCP_CLIENT, ...change });
      expect(res, JSON.stringify(change)).toEqual({ status: 400, body: { error, error_description: expect.stringMatching(description) } });
    }
    expect(await stored(environmentId)).toEqual([]);
  });

  it('closes again: the endpoint is gone, registered clients stay', async () => {
    const { environmentId, issuer, open } = await environment();
    await open(true);
    expect((await register(issuer, MCP_CLIENT)).status).toBe(201);
    await open(false);
    expect(await register(issuer, MCP_CLIENT)).toEqual({ status: 404, body: CLOSED });
    expect(await stored(environmentId)).toHaveLength(1);
  });
});
