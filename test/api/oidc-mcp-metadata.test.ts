// Protected resource metadata (RFC 9728) of the MCP servers of an environment's trust store: public, at the issuer's
// path and at its well-known form; 404 for what is not a servable MCP server of that environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { seedTrustStore } from '../helpers/trust-store-seed.ts';

let t: TestApp;
let environmentId: string;
let otherEnvironmentId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: 'https://iam.example.com' });
  const { environmentIds } = await newEnvironments(t);
  [environmentId, otherEnvironmentId] = environmentIds as [string, string];
  Object.assign(
    ids,
    await seedTrustStore(t.pool, environmentId, [
      { subject: 'https://tools.example.com/mcp', kind: 'mcp_server', allowedTools: ['search'] },
      { subject: 'https://new.example.com/mcp', kind: 'mcp_server', status: 'pending' },
      { subject: 'https://paused.example.com/mcp', kind: 'mcp_server', status: 'suspended' },
      { subject: 'https://gone.example.com/mcp', kind: 'mcp_server', status: 'revoked' },
      { subject: 'spiffe://example.com/agent/billing', kind: 'agent' },
    ]),
  );
});
afterAll(() => t?.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });
const paths = (env: string, entry: string) => [
  `/v1/oidc/${env}/protected-resources/${entry}`,
  `/.well-known/oauth-protected-resource/v1/oidc/${env}/protected-resources/${entry}`,
];

describe('protected resource metadata', () => {
  it('serves the metadata of a verified or pending MCP server, without a token, at both URLs', async () => {
    for (const subject of ['https://tools.example.com/mcp', 'https://new.example.com/mcp']) {
      for (const url of paths(environmentId, ids[subject]!)) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({
          resource: subject,
          authorization_servers: [`https://iam.example.com/v1/oidc/${environmentId}`],
          scopes_supported: ['openid', 'profile', 'email'],
          bearer_methods_supported: ['header'],
          resource_name: subject,
        });
      }
    }
  });

  it('is 404 for a suspended or revoked server, an agent, an unknown entry, or another environment', async () => {
    const cases = [
      [environmentId, ids['https://paused.example.com/mcp']!],
      [environmentId, ids['https://gone.example.com/mcp']!],
      [environmentId, ids['spiffe://example.com/agent/billing']!],
      [environmentId, crypto.randomUUID()],
      [otherEnvironmentId, ids['https://tools.example.com/mcp']!],
      [crypto.randomUUID(), ids['https://tools.example.com/mcp']!],
    ];
    for (const [env, entry] of cases) {
      for (const url of paths(env!, entry!)) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toMatchObject({ code: 'protected_resource.not_found', requestId: expect.any(String) });
      }
    }
  });

  it('answers a malformed id with a 400 naming it', async () => {
    const res = await get(`/v1/oidc/${environmentId}/protected-resources/not-a-uuid`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ path: 'params.entryId' }] });
  });
});
