// An upstream OpenID provider for SSO tests: a second environment of the same service, with a confidential client
// whose redirect URI is the downstream environment's SSO callback, and a directory user (verified email) with a
// password. The downstream environment gets an `oidc` connection to it through the connections API.
import http from 'node:http';
import type net from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expect } from 'vitest';
import { bearer } from './app.ts';
import { createOidcClient, directoryUser, type OidcTestApp } from './oidc.ts';
import { newEnvironments } from './fixtures.ts';
import { setPassword } from './sign-in.ts';

export const UPSTREAM_PASSWORD = 'upstream horse battery';

/** Saves a connection of the downstream environment through the API; its id. */
export async function saveConnection(t: OidcTestApp, token: string, tenantId: string, environmentId: string, providerId: string, formPayload: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/environments/${environmentId}/connections`,
    headers: bearer(token),
    payload: { providerId, formPayload: JSON.stringify(formPayload) },
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { connection: { id: string } }).connection.id;
}

/** The upstream environment, its user, and the downstream connection to it (`mapping`/`provisioning` as given). */
export async function upstreamOidc(
  t: OidcTestApp,
  token: string,
  downstream: { tenantId: string; environmentId: string },
  settings: object = {},
  email = `up-${crypto.randomUUID().slice(0, 8)}@example.com`,
) {
  const { environmentIds } = await newEnvironments(t, token);
  const environmentId = environmentIds[0] as string;
  const callback = `${t.baseUrl}/v1/sso/${downstream.environmentId}/oidc/callback`;
  const { clientId, clientSecret } = await createOidcClient(t, environmentId, { redirectUris: [callback], grantTypes: ['authorization_code'] });
  const user = await directoryUser(t, environmentId, email);
  await setPassword(t, token, downstream.tenantId, environmentId, user.id, UPSTREAM_PASSWORD);
  const connectionId = await saveConnection(t, token, downstream.tenantId, downstream.environmentId, 'oidc', {
    issuer: t.issuer(environmentId),
    clientId,
    clientSecret,
    ...settings,
  });
  return { environmentId, issuer: t.issuer(environmentId), clientId, user, email, connectionId, callback };
}

/**
 * A bare OpenID provider on a local port whose token endpoint answers the ID token a test makes (signed by the key
 * its JWKS publishes, or by another key to forge one): for what a real provider never sends.
 */
export async function scriptedIssuer() {
  const published = await generateKeyPair('ES256');
  const forger = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  let idToken: (claims: { aud: string; nonce: string }) => Promise<string> = async () => '';
  const server = http.createServer(async (req, res) => {
    const json = (body: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') {
      return json({
        issuer: base,
        authorization_endpoint: `${base}/auth`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
      });
    }
    if (req.url === '/jwks') return json({ keys: [jwk] });
    if (req.url === '/token') return json({ access_token: 'at', token_type: 'Bearer', id_token: await idToken(pending) });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  let pending = { aud: '', nonce: '' };
  const sign = (key: typeof published.privateKey, claims: object) =>
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(base).setIssuedAt().setExpirationTime('5m').sign(key);
  return {
    issuer: base,
    /** The next token response's ID token for `sub`, signed by the published key or (`forged`) another, with `extra` claims (amr, acr…). */
    answer(sub: string, aud: string, nonce: string, forged = false, extra: object = {}) {
      pending = { aud, nonce };
      idToken = (c) =>
        sign(forged ? forger.privateKey : published.privateKey, {
          sub,
          aud: c.aud,
          nonce: c.nonce,
          email: `${sub}@example.com`,
          email_verified: true,
          ...extra,
        });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
