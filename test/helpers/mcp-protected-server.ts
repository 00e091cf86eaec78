// An MCP server protected by this service, built only from the official SDK and what the service publishes: the
// SDK's McpServer over Streamable HTTP behind the SDK's requireBearerAuth, which verifies access tokens by the
// issuer's JWKS with `aud` = the server's URL and answers a 401 pointing `resource_metadata` at the protected
// resource metadata this service serves for the server's trust-store entry. Its one tool answers who called it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

export interface ProtectedMcpServer {
  /** The server's URL: the subject of its trust-store entry and the audience of its tokens. */
  url: string;
  /** Points the server at its authorization: the environment's issuer and its metadata URL at this service. */
  protect(issuer: string, resourceMetadataUrl: string): void;
  close(): Promise<void>;
}

export async function startProtectedMcpServer(): Promise<ProtectedMcpServer> {
  const auth: { issuer?: string; resourceMetadataUrl?: string } = {};
  const app = express();
  app.use(express.json());
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const jwks = createRemoteJWKSet(new URL(`${auth.issuer}/jwks`));
        const { payload } = await jwtVerify(token, jwks, { issuer: auth.issuer!, audience: url });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
          expiresAt: payload.exp!,
          resource: new URL(url),
          extra: { sub: payload.sub },
        };
      } catch (error) {
        throw new InvalidTokenError(`the token does not verify: ${(error as Error).message}`);
      }
    },
  };

  app.all('/mcp', (req, res, next) =>
    requireBearerAuth({ verifier, resourceMetadataUrl: auth.resourceMetadataUrl!, expectedResource: new URL(url) })(req, res, next),
  );
  app.all('/mcp', async (req, res) => {
    const mcp = new McpServer({ name: 'protected-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.registerTool('whoami', { description: 'Who the access token names' }, (extra) => ({
      content: [{ type: 'text', text: JSON.stringify({ sub: extra.authInfo?.extra?.sub, clientId: extra.authInfo?.clientId }) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  return {
    url,
    protect: (issuer, resourceMetadataUrl) => Object.assign(auth, { issuer, resourceMetadataUrl }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
