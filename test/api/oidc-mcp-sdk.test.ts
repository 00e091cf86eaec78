// The MCP SDK end to end: the SDK's own server, protected by this service (its trust-store entry, the metadata we
// serve for it, tokens verified by the issuer's JWKS with aud = the server), and the SDK's own client, unchanged:
// 401 → protected resource metadata → authorization server metadata by path insertion → dynamic registration →
// authorization code + PKCE with `resource` → a token for the server → tools/list and a tool call.
import { sql } from 'slonik';
import { z } from 'zod';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { bearer } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { directoryUser, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword, signInThroughPages } from '../helpers/sign-in.ts';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../helpers/mcp-protected-server.ts';
import { TestOAuthClientProvider } from '../helpers/mcp-oauth-client.ts';
import { seedAgent } from '../helpers/oidc-agents.ts';
import { seedTrustStore } from '../helpers/trust-store-seed.ts';

let t: OidcTestApp;
let server: ProtectedMcpServer;
let tenantId: string;
let environmentId: string;
let issuer: string;
let metadataUrl: string;

beforeAll(async () => {
  t = await startOidcApp();
  server = await startProtectedMcpServer();
  const made = await newEnvironments(t);
  tenantId = made.tenantId;
  environmentId = made.environmentIds[0]!;
  issuer = t.issuer(environmentId);
  const ids = await seedTrustStore(t.pool, environmentId, [{ subject: server.url, kind: 'mcp_server', allowedTools: ['whoami'] }]);
  metadataUrl = `${issuer}/protected-resources/${ids[server.url]}`;
  server.protect(issuer, metadataUrl);
  const res = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${tenantId}/environments/${environmentId}/settings/oidc`,
    headers: bearer(await t.token()),
    payload: { dynamicRegistration: true },
  });
  expect(res.statusCode).toBe(200);
  // The Provider is rebuilt on the NOTIFY: wait until it advertises registration.
  await vi.waitFor(
    async () => {
      const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { registration_endpoint?: string };
      if (!doc.registration_endpoint) throw new Error('registration not advertised yet');
    },
    { timeout: 10_000, interval: 20 },
  );
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** A fetch that records what the SDK asked, as `METHOD url → status`. */
function recordingFetch() {
  const calls: string[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    calls.push(`${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input)} → ${response.status}`);
    return response;
  };
  return { calls, fetchFn };
}

describe('the MCP SDK against a server protected by this service', () => {
  it('authorizes, then lists and calls tools with a token whose audience is the server', async () => {
    const user = await directoryUser(t, environmentId);
    await setPassword(t, await t.token(), tenantId, environmentId, user.id, 'correct horse battery staple');
    // The "browser": the environment's login and consent pages, over HTTP.
    const provider = new TestOAuthClientProvider(
      async (url) => (await signInThroughPages(url, { userName: user.userName, password: 'correct horse battery staple' })).callback,
    );
    const { calls, fetchFn } = recordingFetch();
    const transport = () => new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider, fetch: fetchFn });

    // As the SDK's examples do: the transport that met the 401 (and its resource_metadata) finishes the authorization.
    const first = transport();
    await expect(new Client({ name: 'test', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(calls).toEqual([
      `POST ${server.url} → 401`,
      `GET ${metadataUrl} → 200`,
      `GET ${t.baseUrl}/.well-known/oauth-authorization-server/v1/oidc/${environmentId} → 200`,
      `POST ${issuer}/reg → 201`,
    ]);
    const [authorizationUrl] = provider.authorizationUrls;
    expect(Object.fromEntries(authorizationUrl!.searchParams)).toMatchObject({
      client_id: (provider.information as { client_id: string }).client_id,
      code_challenge_method: 'S256',
      resource: server.url,
      scope: 'openid profile email',
    });
    expect(provider.code).toEqual(expect.any(String));

    await first.finishAuth(provider.code!);
    expect(decodeJwt(provider.saved!.access_token)).toMatchObject({
      iss: issuer,
      aud: server.url,
      sub: user.id,
      scope: 'profile email',
      client_id: (provider.information as { client_id: string }).client_id,
    });

    const mcp = new Client({ name: 'test', version: '1.0.0' });
    await mcp.connect(transport());
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami']);
    const result = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({
      sub: user.id,
      clientId: (provider.information as { client_id: string }).client_id,
    });
    await mcp.close();

    const registered = await t.pool.one(sql.type(z.object({ dynamic: z.boolean(), name: z.string() }))`
      SELECT dynamically_registered AS dynamic, name FROM oidc_clients
      WHERE environment_id = ${environmentId} AND client_id = ${(provider.information as { client_id: string }).client_id}`);
    expect(registered).toEqual({ dynamic: true, name: 'MCP SDK test client' });
  });

  it('lets an agent of the trust store call tools with the SDK’s PrivateKeyJwtProvider (client credentials, private_key_jwt)', async () => {
    const agent = await seedAgent(t, environmentId, { allowedTools: ['whoami'] });
    const { calls, fetchFn } = recordingFetch();
    const authProvider = new PrivateKeyJwtProvider({ clientId: agent.subject, privateKey: agent.privateJwk, algorithm: 'ES256', expectedIssuer: issuer });
    const mcp = new Client({ name: 'agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider, fetch: fetchFn }));
    expect(calls.slice(0, 4)).toEqual([
      `POST ${server.url} → 401`,
      `GET ${metadataUrl} → 200`,
      `GET ${t.baseUrl}/.well-known/oauth-authorization-server/v1/oidc/${environmentId} → 200`,
      `POST ${issuer}/token → 200`,
    ]);
    expect(decodeJwt(authProvider.tokens()!.access_token)).toMatchObject({ aud: server.url, sub: agent.subject, client_id: agent.subject });
    const result = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ sub: agent.subject, clientId: agent.subject });
    await mcp.close();
  });

  it('is answered 401 with resource_metadata pointing at this service for a token that does not verify', async () => {
    const res = await fetch(server.url, { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
  });
});
