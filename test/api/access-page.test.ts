// The access-requests page without a browser: a visitor without a session is sent to the environment's authorization
// endpoint (code + PKCE S256, the built-in client registered on the way and listed with the environment's clients);
// a deactivated built-in client turns the page off; an unknown environment, a callback nobody started, a form without
// a session and the state endpoint without a session answer as a page (or JSON) would. The signed-in page itself is
// tested in Chromium (test/browser/access-requests-page.test.ts).
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let token: string;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
afterAll(() => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('access-requests page', () => {
  it('sends a visitor to the sign-in with the built-in client, PKCE and a sealed sign-in cookie', async () => {
    const { tenantId, environmentIds } = await newEnvironments(t, token);
    const env = environmentIds[0]!;
    const res = await get(`/v1/oidc/${env}/access`);
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.origin + location.pathname).toBe(`${t.issuer(env)}/auth`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      client_id: `access-requests-${env}`,
      redirect_uri: `${t.issuer(env)}/access/callback`,
      response_type: 'code',
      scope: 'openid',
      state: expect.stringMatching(/^[\w-]{43}$/),
      nonce: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(res.headers['set-cookie']).toEqual([
      expect.stringMatching(new RegExp(`^iam_access_sign_in=v1\\.[^;]+; Path=/v1/oidc/${env}/access; HttpOnly; SameSite=Lax; Max-Age=600$`)),
    ]);

    const clients = await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}/environments/${env}/oidc/clients`, headers: bearer(token) });
    expect(clients.json().clients).toEqual([
      expect.objectContaining({
        clientId: `access-requests-${env}`,
        name: 'Access requests',
        redirectUris: [`${t.issuer(env)}/access/callback`],
        postLogoutRedirectUris: [`${t.issuer(env)}/access/signed-out`],
        grantTypes: ['authorization_code'],
        tokenEndpointAuthMethod: 'none',
        pkceRequired: true,
        active: true,
      }),
    ]);
    // The provider knows the client: the authorization request is answered with the sign-in pages, not an error.
    const authorization = await fetch(location, { redirect: 'manual' });
    expect(authorization.status).toBe(303);
    expect(authorization.headers.get('location')).toMatch(new RegExp(`/v1/oidc/${env}/interaction/`));

    // A second visit registers nothing new.
    expect((await get(`/v1/oidc/${env}/access`)).statusCode).toBe(302);
    const count = await t.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM oidc_clients WHERE environment_id = ${env}`);
    expect(count).toBe(1);

    // Deactivating the built-in client turns the page off.
    await t.pool.query(sql.unsafe`UPDATE oidc_clients SET active = false WHERE environment_id = ${env} AND client_id = ${`access-requests-${env}`}`);
    const off = await get(`/v1/oidc/${env}/access`);
    expect(off.statusCode).toBe(403);
    expect(off.body).toContain('Access requests are turned off');
  });

  it('answers what needs a session, or a sign-in this browser started, without one', async () => {
    const { environmentIds } = await newEnvironments(t, token);
    const env = environmentIds[0]!;
    const unknown = await get(`/v1/oidc/${crypto.randomUUID()}/access`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');

    const callback = await get(`/v1/oidc/${env}/access/callback?code=x&state=y`);
    expect(callback.statusCode).toBe(400);
    expect(callback.body).toContain('This sign-in expired or was not started here.');

    // A sign-in cookie of another environment (or a forged one) is no sign-in here.
    const started = await get(`/v1/oidc/${env}/access`);
    const cookie = (started.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
    const { environmentIds: others } = await newEnvironments(t, token);
    const elsewhere = await get(`/v1/oidc/${others[0]}/access/callback?code=x&state=y`, { cookie });
    expect(elsewhere.statusCode).toBe(400);
    const forged = await get(`/v1/oidc/${env}/access/callback?code=x&state=y`, { cookie: `${cookie}x` });
    expect(forged.statusCode).toBe(400);

    const state = await get(`/v1/oidc/${env}/access/state`);
    expect(state.statusCode).toBe(401);
    expect(state.json()).toEqual({ error: 'Not signed in to the access-requests page.', code: 'access_page.signed_out', requestId: expect.any(String) });

    const form = await t.app.inject({ method: 'POST', url: `/v1/oidc/${env}/access/requests`, payload: { csrf: 'x' } });
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toBe(`/v1/oidc/${env}/access`);
  });
});
