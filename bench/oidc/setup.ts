// The service side of bench:oidc: the real app listening on a free port with PUBLIC_BASE_URL its own address (so the
// issuer is reachable as advertised), an environment, a confidential OIDC client (client_credentials and code +
// PKCE), and a directory user with a password.
import { sql } from 'slonik';
import { encrypt } from '../../lib/crypto.ts';
import { startBenchApp } from '../app.ts';
import { freePort } from '../../db/embedded.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const PASSWORD = 'correct horse battery staple';
/** The API the client-credentials tokens are for (RFC 8707): an MCP server of the environment's trust store. */
export const RESOURCE = 'https://api.bench.example/mcp';

/** `extend`: routes a bench adds to the app beside the service's own (bench/app.ts). */
/** `host`: the name in PUBLIC_BASE_URL (passkeys need a domain name such as `localhost`, not an IP address). */
export async function startOidcBenchService(databaseUrl: string, extend?: Parameters<typeof startBenchApp>[2], host = '127.0.0.1') {
  const port = await freePort();
  const baseUrl = `http://${host}:${port}`;
  const service = await startBenchApp(databaseUrl, { PUBLIC_BASE_URL: baseUrl }, extend);
  await service.app.listen({ port, host: '127.0.0.1' });
  const { environmentId } = service.credentials;
  const clientId = `bench-${crypto.randomUUID()}`;
  const clientSecret = `secret-${crypto.randomUUID()}`;
  await service.pool.query(sql.unsafe`
    INSERT INTO oidc_clients (environment_id, client_id, name, redirect_uris, grant_types, scopes, token_endpoint_auth_method, pkce_required, secret_encrypted)
    VALUES (${environmentId}, ${clientId}, 'bench:oidc', ${sql.array([REDIRECT_URI], 'text')},
      ${sql.array(['authorization_code', 'refresh_token', 'client_credentials'], 'text')},
      ${sql.array(['openid', 'profile', 'email', 'offline_access'], 'text')}, 'client_secret_basic', true, ${encrypt(service.masterKey, clientSecret)})`);
  await service.pool.query(sql.unsafe`
    INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, verified_at)
    VALUES (${environmentId}, 'mcp_server', ${RESOURCE}, 'bench:oidc API', 'verified', now())`);
  return { service, baseUrl, environmentId, issuer: `${baseUrl}/v1/oidc/${environmentId}`, client: { id: clientId, secret: clientSecret } };
}

export const basic = (client: { id: string; secret: string }) => `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
