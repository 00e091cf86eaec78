// GET …/sdk-config: what a developer needs to sign users in with the environment's OpenID provider: the issuer and
// oidc-provider's endpoints under it, the client id (the one asked for, else the first active client), the
// environment variables to set, and warnings about setup still missing. Never a secret.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

const B = 'https://iam.example.com';
let t: TestApp;
let token: string;
let environmentId: string;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: B });
  token = await t.token();
});
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}`;
});
afterAll(() => t.close());

const sdkConfig = async (query = '', auth = token) => {
  const res = await t.app.inject({ method: 'GET', url: `${base}/sdk-config${query}`, headers: bearer(auth) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
async function register(body: object) {
  const res = await t.app.inject({ method: 'POST', url: `${base}/oidc/clients`, headers: bearer(token), payload: { clientName: 'App', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { client: { clientId: string }; clientSecret?: string };
}

const endpoints = (issuer: string) => ({
  issuer,
  discovery: `${issuer}/.well-known/openid-configuration`,
  authorization: `${issuer}/auth`,
  token: `${issuer}/token`,
  userinfo: `${issuer}/me`,
  jwks: `${issuer}/jwks`,
  end_session: `${issuer}/session/end`,
  introspection: `${issuer}/token/introspection`,
  revocation: `${issuer}/token/revocation`,
  pushed_authorization_request: `${issuer}/request`,
});

describe('sdk-config', () => {
  it('gives the issuer and endpoints, no client id and a warning when no client is registered', async () => {
    const issuer = `${B}/v1/oidc/${environmentId}`;
    expect(await sdkConfig()).toEqual({
      clientId: null,
      endpoints: endpoints(issuer),
      envVars: { OIDC_ISSUER: issuer },
      warnings: [`No OIDC client is registered: register one (POST ${base}/oidc/clients).`],
    });
  });

  it('gives the first active client, its redirect URI, and no warning; never the secret', async () => {
    const { client, clientSecret } = await register({ redirectUris: ['https://app.example.com/cb', 'https://app.example.com/cb2'] });
    await register({ redirectUris: ['https://later.example.com/cb'] });
    const issuer = `${B}/v1/oidc/${environmentId}`;
    const config = await sdkConfig();
    expect(config).toEqual({
      clientId: client.clientId,
      endpoints: endpoints(issuer),
      envVars: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: client.clientId, OIDC_REDIRECT_URI: 'https://app.example.com/cb' },
      warnings: [],
    });
    expect(JSON.stringify(config)).not.toContain(clientSecret);
  });

  it('gives the client asked for, or says it is not one of the environment', async () => {
    const first = await register({ redirectUris: ['https://app.example.com/cb'] });
    const second = await register({ redirectUris: ['https://second.example.com/cb'] });
    const asked = await sdkConfig(`?clientId=${second.client.clientId}`);
    expect(asked).toMatchObject({ clientId: second.client.clientId, envVars: { OIDC_REDIRECT_URI: 'https://second.example.com/cb' }, warnings: [] });
    const unknown = await sdkConfig('?clientId=oc_unknown');
    expect(unknown.clientId).toBe(first.client.clientId);
    expect(unknown.warnings).toEqual([`oc_unknown is not an OIDC client of this environment: the first active client is shown instead.`]);
  });

  it('warns about a client without redirect URIs and one the allowlist keeps out', async () => {
    const { client } = await register({ redirectUris: ['https://app.example.com/cb'] });
    const other = await register({ redirectUris: ['https://other.example.com/cb'] });
    await t.app.inject({ method: 'PUT', url: `${base}/oidc/client-allowlist`, headers: bearer(token), payload: { clientIds: [other.client.clientId] } });
    expect((await sdkConfig()).warnings).toEqual([
      `The client ${client.clientId} is not in the environment's client allowlist: it cannot sign users in (PUT ${base}/oidc/client-allowlist).`,
    ]);
    const project = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/projects`,
      headers: bearer(token),
      payload: { name: 'Robots', type: 'm2m' },
    });
    environmentId = project.json().environments[0].id;
    base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}`;
    const robot = await register({ grantTypes: ['client_credentials'] });
    const config = await sdkConfig();
    expect(config.envVars).toEqual({ OIDC_ISSUER: `${B}/v1/oidc/${environmentId}`, OIDC_CLIENT_ID: robot.client.clientId });
    expect(config.warnings).toEqual([
      `The client ${robot.client.clientId} has no redirect URI: it can sign no user in (PATCH ${base}/oidc/clients/${robot.client.clientId}).`,
    ]);
  });

  it("needs environments scopes and hides other organizations' environments", async () => {
    const res = await t.app.inject({ method: 'GET', url: `${base}/sdk-config`, headers: bearer(await t.token('oidc-clients:read')) });
    expect(res.statusCode).toBe(403);
    const other = await t.app.inject({ method: 'GET', url: `${base}/sdk-config`, headers: bearer((await otherOrganization(t)).token) });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('tenant.not_found');
    const bad = await t.app.inject({ method: 'GET', url: `${base}/sdk-config?clientId=${'x'.repeat(201)}`, headers: bearer(token) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('querystring.clientId');
  });
});
