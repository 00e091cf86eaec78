// An upstream OpenID provider for SSO tests: a second environment of the same service, with a confidential client
// whose redirect URI is the downstream environment's SSO callback, and a directory user (verified email) with a
// password. The downstream environment gets an `oidc` connection to it through the connections API.
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
export async function upstreamOidc(t: OidcTestApp, token: string, downstream: { tenantId: string; environmentId: string }, settings: object = {}) {
  const { environmentIds } = await newEnvironments(t, token);
  const environmentId = environmentIds[0] as string;
  const callback = `${t.baseUrl}/v1/sso/${downstream.environmentId}/oidc/callback`;
  const { clientId, clientSecret } = await createOidcClient(t, environmentId, { redirectUris: [callback], grantTypes: ['authorization_code'] });
  const email = `up-${crypto.randomUUID().slice(0, 8)}@example.com`;
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
