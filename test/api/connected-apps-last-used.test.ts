// A connected app's lastUsedAt: null at consent, set when a token is issued under the grant (code exchange, refresh),
// written after the answer (at most once a minute per grant and instance), never for a client acting as itself.
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { authorize, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
beforeAll(async () => {
  t = await startOidcApp();
});
afterAll(() => t?.close());

const POLL = { timeout: 10_000, interval: 50 };

describe('connected apps: lastUsedAt', () => {
  it('is null at consent and set once a token is issued under the grant', async () => {
    const env = await oidcEnvironment(t);
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const user = await directoryUser(t, env.environmentId);
    const grants = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/connected-apps?clientId=${env.clientId}`,
        headers: bearer(await t.token()),
      });
      expect(res.statusCode).toBe(200);
      return res.json().grants as { userId: string; consentedAt: string; lastUsedAt: string | null }[];
    };

    // Client credentials: the client acts as itself, under no user's grant.
    await client.clientCredentialsGrant(config);
    const codeVerifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid offline_access',
      prompt: 'consent',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    const { callback } = await authorize(t, env.environmentId, url, { accountId: user.id });
    // The consent page writes the connected app (the helper finishes the interaction without its pages).
    await t.pool.query(sql.unsafe`
      INSERT INTO oidc_client_grants (environment_id, client_id, user_id, scopes)
      VALUES (${env.environmentId}, ${env.clientId}, ${user.id}, ${sql.array(['openid', 'offline_access'], 'text')})`);
    expect(await grants()).toEqual([expect.objectContaining({ userId: user.id, lastUsedAt: null })]);

    const before = Date.now();
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, idTokenExpected: true });
    await expect.poll(async () => (await grants())[0]?.lastUsedAt ?? null, POLL).not.toBeNull();
    const [grant] = await grants();
    expect(Date.parse(grant!.lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(grant!.lastUsedAt!)).toBeGreaterThanOrEqual(Date.parse(grant!.consentedAt));

    // A refresh within the minute is a token under the same grant too: answered as ever (the write is throttled).
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).resolves.toMatchObject({ token_type: 'bearer' });
  });
});
