// Agents of the trust store as clients of the environment's OpenID provider (RFC 7523): a verified agent entry gets
// tokens with private_key_jwt by its registered keys, its tokens name it (`sub`, `client_id`), AuthZEN decides for
// it as the subject taken from the token, and a suspended, revoked or deleted entry is refused at the next request.
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { createOidcClient, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { addAgentKey, agentTokenRequest, seedAgent } from '../helpers/oidc-agents.ts';
import { seedTrustStore, setEntryStatus } from '../helpers/trust-store-seed.ts';

const MCP_SERVER = 'https://tools.example.com/mcp';
let t: OidcTestApp;
let pdp: Pdp;
let issuer: string;

beforeAll(async () => {
  t = await startOidcApp();
  pdp = await authzenEnvironment(t, { users: [{ userName: 'alice' }] });
  issuer = t.issuer(pdp.environmentId);
  await seedTrustStore(t.pool, pdp.environmentId, [{ subject: MCP_SERVER, kind: 'mcp_server', allowedTools: ['search'] }]);
});
afterAll(() => t?.close());

const invalidClient = { status: 401, body: expect.objectContaining({ error: 'invalid_client' }) };

describe('agents with private_key_jwt', () => {
  it('get a JWT access token for an MCP server whose sub and client_id are the agent and aud the server', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    const res = await agentTokenRequest(issuer, agent, { resource: MCP_SERVER });
    expect(res).toEqual({ status: 200, body: expect.objectContaining({ token_type: 'Bearer', access_token: expect.any(String) }) });
    const { payload } = await jwtVerify(res.body.access_token as string, createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer, audience: MCP_SERVER });
    expect(payload).toMatchObject({ sub: agent.subject, client_id: agent.subject, aud: MCP_SERVER });
  });

  it('work with openid-client unchanged (PrivateKeyJwt, client credentials grant)', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    const config = await client.discovery(new URL(issuer), agent.subject, undefined, client.PrivateKeyJwt({ key: agent.privateKey, kid: agent.kid }), {
      execute: [client.allowInsecureRequests],
    });
    const tokens = await client.clientCredentialsGrant(config, { resource: MCP_SERVER });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString())).toMatchObject({ sub: agent.subject, aud: MCP_SERVER });
  });

  it('are the AuthZEN subject taken from the token: call_tool per the entry’s allowed tools', async () => {
    const agent = await seedAgent(t, pdp.environmentId, { allowedTools: ['search'] });
    const token = await agentTokenRequest(issuer, agent);
    expect(token.status).toBe(200);
    const resourceServer = await createOidcClient(t, pdp.environmentId, { grantTypes: ['client_credentials'] });
    const introspection = await fetch(`${issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${resourceServer.clientId}:${resourceServer.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ token: token.body.access_token as string }),
    });
    const claims = (await introspection.json()) as { active: boolean; client_id: string };
    expect(claims).toMatchObject({ active: true, client_id: agent.subject });
    const decide = async (tool: string) =>
      (
        await pdp.post('evaluation', {
          subject: { type: 'agent', id: claims.client_id },
          action: { name: 'call_tool' },
          resource: { type: 'mcp_tool', id: tool },
          options: { explain: true },
        })
      ).body;
    expect(await decide('search')).toMatchObject({ decision: true, context: { reason: { code: 'trust_store.tool_allowed', entryId: agent.entryId } } });
    expect(await decide('refund')).toMatchObject({ decision: false, context: { reason: { code: 'trust_store.tool_not_allowed' } } });
  });

  it('are refused with invalid_client at the next token request once suspended, revoked or deleted', async () => {
    for (const change of ['suspended', 'revoked', 'deleted'] as const) {
      const agent = await seedAgent(t, pdp.environmentId);
      expect((await agentTokenRequest(issuer, agent)).status).toBe(200);
      if (change === 'deleted') await t.pool.query(sql.unsafe`DELETE FROM trust_store_entries WHERE id = ${agent.entryId}`);
      else await setEntryStatus(t.pool, agent.entryId, change);
      expect(await agentTokenRequest(issuer, agent), change).toEqual(invalidClient);
    }
  });

  it('are no clients while pending verification', async () => {
    const agent = await seedAgent(t, pdp.environmentId, { status: 'pending' });
    expect(await agentTokenRequest(issuer, agent)).toEqual(invalidClient);
  });

  it('sign with an active or retiring key; a retired or revoked key, or one of another agent, is refused', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    const other = await seedAgent(t, pdp.environmentId);
    const retiring = await addAgentKey(t, pdp.environmentId, agent.entryId, 'ES256', 'retiring');
    expect((await agentTokenRequest(issuer, { ...agent, ...retiring })).status).toBe(200);
    for (const status of ['retired', 'revoked']) {
      const key = await addAgentKey(t, pdp.environmentId, agent.entryId, 'ES256', status);
      expect(await agentTokenRequest(issuer, { ...agent, ...key }), status).toEqual(invalidClient);
    }
    expect(await agentTokenRequest(issuer, { ...agent, kid: other.kid, privateKey: other.privateKey })).toEqual(invalidClient);
  });

  it('sign with EdDSA and RS256 keys too', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    for (const alg of ['EdDSA', 'RS256'] as const) {
      const key = await addAgentKey(t, pdp.environmentId, agent.entryId, alg);
      expect((await agentTokenRequest(issuer, { ...agent, ...key })).status, alg).toBe(200);
    }
  });

  it('are clients of their own environment only', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    const other = await authzenEnvironment(t, { users: [] });
    expect(await agentTokenRequest(t.issuer(other.environmentId), agent)).toEqual(invalidClient);
  });

  it('use the client credentials grant only', async () => {
    const agent = await seedAgent(t, pdp.environmentId);
    const res = await agentTokenRequest(issuer, agent, { grant_type: 'refresh_token', refresh_token: 'x' });
    // oidc-provider answers a grant type outside the client's with invalid_request and this description.
    expect(res).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'requested grant type is not allowed for this client' } });
  });
});
