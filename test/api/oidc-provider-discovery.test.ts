import { importJWK, type JWK } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
beforeAll(async () => {
  t = await startOidcApp();
  env = await oidcEnvironment(t);
});
afterAll(() => t.close());

describe('OpenID provider discovery', () => {
  it('answers the discovery document at the issuer, with endpoints under it and the features on', async () => {
    const res = await fetch(`${env.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(env.issuer);
    expect(doc).toMatchObject({
      authorization_endpoint: `${env.issuer}/auth`,
      token_endpoint: `${env.issuer}/token`,
      jwks_uri: `${env.issuer}/jwks`,
      userinfo_endpoint: `${env.issuer}/me`,
      introspection_endpoint: `${env.issuer}/token/introspection`,
      revocation_endpoint: `${env.issuer}/token/revocation`,
      end_session_endpoint: `${env.issuer}/session/end`,
      pushed_authorization_request_endpoint: `${env.issuer}/request`,
      code_challenge_methods_supported: ['S256'],
      backchannel_logout_supported: true,
    });
    expect(doc.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256']));
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(doc.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    expect(doc.registration_endpoint).toBeUndefined();
  });

  it.each(['oauth-authorization-server', 'openid-configuration'])('answers the same document by RFC 8414 path insertion (%s)', async (kind) => {
    const byIssuer = await (await fetch(`${env.issuer}/.well-known/openid-configuration`)).json();
    const res = await fetch(`${t.baseUrl}/.well-known/${kind}/v1/oidc/${env.environmentId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(byIssuer);
  });

  it('is what openid-client discovers', async () => {
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    expect(config.serverMetadata().issuer).toBe(env.issuer);
  });

  it('publishes an ES256 and an RS256 public key in the JWKS, no private member', async () => {
    const res = await fetch(`${env.issuer}/jwks`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
    for (const key of keys) {
      expect(key).toMatchObject({ use: 'sig', kid: expect.any(String) });
      expect(key.d).toBeUndefined();
      expect(key.p).toBeUndefined();
    }
    for (const key of keys) await expect(importJWK(key as JWK, key.alg as string)).resolves.toBeDefined();
  });

  it('builds the key ring once when instances build the same environment together', async () => {
    const other = await oidcEnvironment(t);
    t.app.oidc.evict(other.environmentId);
    await Promise.all([1, 2, 3].map(() => fetch(`${other.issuer}/jwks`)));
    const { rows } = await t.pool.query(
      sql.unsafe`SELECT alg, count(*)::int AS n FROM oidc_signing_keys WHERE environment_id = ${other.environmentId} GROUP BY alg ORDER BY alg`,
    );
    expect(rows).toEqual([
      { alg: 'ES256', n: 1 },
      { alg: 'RS256', n: 1 },
    ]);
  });

  it.each([
    ['an unknown environment', () => crypto.randomUUID()],
    ['a malformed environment id', () => 'not-an-id'],
  ])('answers 404 in OAuth style for %s', async (_name, id) => {
    const res = await fetch(`${t.baseUrl}/v1/oidc/${id()}/.well-known/openid-configuration`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'no OpenID provider at this issuer',
      code: 'oidc.unknown_issuer',
      requestId: expect.any(String),
    });
  });
});
