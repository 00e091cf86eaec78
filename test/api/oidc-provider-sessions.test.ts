import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  codeFlow,
  CookieJar,
  createOidcClient,
  directoryUser,
  endSession,
  oidcEnvironment,
  REDIRECT_URI,
  relyingParty,
  startOidcApp,
  type OidcTestApp,
} from '../helpers/oidc.ts';

let t: OidcTestApp;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
});
afterAll(async () => {
  await t.close();
});

async function signedIn(options: Parameters<typeof oidcEnvironment>[1] = {}) {
  const env = await oidcEnvironment(t, options);
  const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
  const user = await directoryUser(t, env.environmentId);
  const jar = new CookieJar();
  const flow = await codeFlow(t, config, env.environmentId, { accountId: user.id }, {}, { jar });
  return { env, config, user, jar, tokens: flow.tokens };
}

/** The callback of a silent (prompt=none) authorization request with the browser's cookies. */
async function silent(s: Awaited<ReturnType<typeof signedIn>>, parameters: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(s.config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    prompt: 'none',
    state: 'silent',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...parameters,
  });
  const { callback } = await authorize(t, s.env.environmentId, url, null, s.jar);
  return Object.fromEntries(callback.searchParams);
}

const directorySessions = async (environmentId: string) =>
  (
    await t.pool.query(sql.unsafe`
      SELECT user_id, factors, client_ids, ip, user_agent, revoked_at IS NOT NULL AS revoked FROM directory_sessions WHERE environment_id = ${environmentId}`)
  ).rows as { revoked: boolean }[];

describe('sessions', () => {
  it('are recorded in directory_sessions with the user, factors, client, address and user agent', async () => {
    const s = await signedIn();
    expect(await directorySessions(s.env.environmentId)).toEqual([
      { user_id: s.user.id, factors: ['pwd'], client_ids: [s.env.clientId], ip: '127.0.0.1', user_agent: 'node', revoked: false },
    ]);
  });

  it("scopes the provider's cookies to the issuer's path, so two environments on one host keep separate sessions in one browser", async () => {
    const s = await signedIn();
    const path = new URL(s.env.issuer).pathname;
    const session = s.jar.received.filter((line) => /^_session(\.sig)?=/.test(line));
    expect(session.length).toBeGreaterThan(0);
    for (const line of session) expect(line).toMatch(new RegExp(`; path=${path}(;|$)`, 'i'));
    for (const line of s.jar.received) expect(line).not.toMatch(/; path=\/(;|$)/i);
  });

  it('prompt=none returns a code with a live session, login_required without one', async () => {
    const s = await signedIn();
    expect(await silent(s)).toEqual({ code: expect.any(String), state: 'silent', iss: s.env.issuer });
    const stranger = { ...s, jar: new CookieJar() };
    expect(await silent(stranger)).toMatchObject({ error: 'login_required', state: 'silent' });
  });

  it('max_age asks for a new sign-in once the last one is older (prompt=none then gets login_required)', async () => {
    const s = await signedIn();
    await t.pool.query(
      sql.unsafe`UPDATE oidc_payloads SET payload = jsonb_set(payload, '{loginTs}', to_jsonb((payload->>'loginTs')::int - 120)) WHERE environment_id = ${s.env.environmentId} AND model = 'Session'`,
    );
    expect(await silent(s, { max_age: '60' })).toMatchObject({ error: 'login_required' });
    expect(await silent(s, { max_age: '3600' })).toMatchObject({ code: expect.any(String) });
  });

  it('a session idle longer than the idle lifetime is not reused', async () => {
    const s = await signedIn();
    await t.pool.query(
      sql.unsafe`UPDATE directory_sessions SET last_active_at = now() - interval '3 days 1 minute' WHERE environment_id = ${s.env.environmentId}`,
    );
    expect(await silent(s)).toMatchObject({ error: 'login_required' });
  });

  // Its back-channel logouts run as durable processes: test/api/directory-sessions-oidc.test.ts.
  it('RP-initiated logout ends the session and returns to the client', async () => {
    const s = await signedIn({ postLogoutRedirectUris: ['http://127.0.0.1:9/signed-out'] });
    const end = client.buildEndSessionUrl(s.config, {
      id_token_hint: s.tokens.id_token as string,
      post_logout_redirect_uri: 'http://127.0.0.1:9/signed-out',
      state: 'bye',
    });
    const { page, html, answer: confirmed } = await endSession(s.jar, end, 'yes');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe('http://127.0.0.1:9/signed-out?state=bye');
    expect((await directorySessions(s.env.environmentId)).map((r) => r.revoked)).toEqual([true]);
    expect(await silent(s)).toMatchObject({ error: 'login_required' });
  });
});

describe('remember me', () => {
  const sessionCookie = (jar: CookieJar) => jar.received.filter((line) => line.startsWith('_session=')).at(-1) as string;

  it('keeps the session cookie past the browser by default, when the user asks for it', async () => {
    const s = await signedIn();
    expect(sessionCookie(s.jar)).toMatch(/; expires=/i);
  });

  it('makes every session end with the browser when the environment turns it off', async () => {
    const env = await oidcEnvironment(t);
    await t.pool.query(sql.unsafe`INSERT INTO oidc_settings (environment_id, session_config) VALUES (${env.environmentId}, '{"rememberMe": false}')`);
    t.app.oidc.evict(env.environmentId);
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const user = await directoryUser(t, env.environmentId);
    const jar = new CookieJar();
    await codeFlow(t, config, env.environmentId, { accountId: user.id, remember: true }, {}, { jar });
    expect(sessionCookie(jar)).not.toMatch(/; expires=/i);
  });
});

describe('the client allowlist', () => {
  it('refuses sign-in to a client outside it with unauthorized_client, once it has entries', async () => {
    const s = await signedIn();
    const other = await createOidcClient(t, s.env.environmentId);
    await t.pool.query(sql.unsafe`INSERT INTO oidc_client_allowlist (environment_id, client_id) VALUES (${s.env.environmentId}, ${other.clientId})`);
    const attempt = async () => {
      const url = client.buildAuthorizationUrl(s.config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state: 'st',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      });
      const res = await fetch(url, { redirect: 'manual' });
      const location = new URL(res.headers.get('location') as string, url);
      return location.pathname === '/callback' ? Object.fromEntries(location.searchParams) : { interaction: true };
    };
    await expect.poll(attempt, { timeout: 10_000, interval: 50 }).toEqual({
      error: 'unauthorized_client',
      error_description: 'this client may not sign in users of this environment (client allowlist)',
      state: 'st',
      iss: s.env.issuer,
    });
    // Client credentials are no sign-in: still allowed.
    await expect(client.clientCredentialsGrant(s.config)).resolves.toMatchObject({ token_type: 'bearer' });
    await t.pool.query(sql.unsafe`INSERT INTO oidc_client_allowlist (environment_id, client_id) VALUES (${s.env.environmentId}, ${s.env.clientId})`);
    await expect.poll(attempt, { timeout: 10_000, interval: 50 }).toEqual({ interaction: true });
  });
});

describe('claim mappings', () => {
  it('add enabled, non-reserved mapped claims to the ID token and to JWT access tokens', async () => {
    const env = await oidcEnvironment(t);
    const user = await directoryUser(t, env.environmentId);
    await t.pool.query(sql.unsafe`UPDATE users SET title = 'Engineer', attributes = '{"department": "R&D"}' WHERE id = ${user.id}`);
    await t.pool.query(sql.unsafe`
      INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, verified_at)
      VALUES (${env.environmentId}, 'mcp_server', 'https://mcp.example.com/mcp', 'MCP', 'verified', now())`);
    await t.pool.query(sql.unsafe`
      INSERT INTO jwt_claim_mappings (environment_id, claim_name, source, metadata_key, static_value, enabled) VALUES
        (${env.environmentId}, 'job_title', 'user_field', 'title', NULL, true),
        (${env.environmentId}, 'department', 'attribute', 'department', NULL, true),
        (${env.environmentId}, 'tier', 'static', NULL, 'gold', true),
        (${env.environmentId}, 'off', 'static', NULL, 'no', false),
        (${env.environmentId}, 'email', 'static', NULL, 'forged@example.com', true)`);
    t.app.oidc.evict(env.environmentId);
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const resource = 'https://mcp.example.com/mcp';
    const { tokens } = await codeFlow(
      t,
      config,
      env.environmentId,
      { accountId: user.id },
      { resource, scope: 'openid email offline_access' },
      { tokenParameters: { resource } },
    );
    const jwks = createRemoteJWKSet(new URL(`${env.issuer}/jwks`));
    const id = (await jwtVerify(tokens.id_token as string, jwks, { issuer: env.issuer })).payload;
    expect(id).toMatchObject({ job_title: 'Engineer', department: 'R&D', tier: 'gold', email: user.emails[0]?.value });
    expect(id.off).toBeUndefined();
    const access = (await jwtVerify(tokens.access_token, jwks, { issuer: env.issuer, audience: resource })).payload;
    expect(access).toMatchObject({ job_title: 'Engineer', department: 'R&D', tier: 'gold' });
    expect(access.email).toBeUndefined();
  });
});
