// Client-credentials tokens for a request the provider has already granted, without its request pipeline.
//
// oidc-provider answers a client-credentials request through some twenty Koa middlewares (body, parameters, client
// authentication, grant checks) around the few calls that mint the token; on a 2-core machine that pipeline, not the
// signature, bounds machine-to-machine tokens to about 0.4 of a bare route that signs the same claims
// (docs/benchmarks.md, bench:oidc). What the provider decides for such a request depends only on the request's
// bytes (the Authorization and Content-Type headers and the form body) and on the Provider's configuration and
// clients, which never change under a Provider: any change to them builds a new one (./providers.ts). So once the
// provider has granted a request, a byte-identical request to the same Provider gets the same decision. The mount
// (api/families/oidc/provider/mount.ts) hands every candidate request to the provider, which decides it; a
// `grant.success` of a client-credentials token under a client secret is remembered here, keyed by a hash of those
// bytes; the next identical request is answered by minting a token with the provider's own ClientCredentials model
// (same claims, format, lifetime, signing key, and the model's own `client_credentials.saved`/`.issued` events) and
// the provider's answer shape. The token endpoint's `grant.success` is not emitted for a replayed answer: the service
// listens to it only for grants of a user (./grant-use.ts), which a client-credentials token never has.
//
// Rechecked at each replay, because they can change under a Provider: the client secret's expiry, and whether the
// resource (an MCP server of the trust store) is still verified. Either failing, or anything throwing, sends the
// request to the provider, which answers it in full. Never replayed: requests with a DPoP proof or an Origin (CORS
// answers), anything but a small form body, and grants to a client that authenticates otherwise than with its secret
// (a client assertion's `jti` is single-use) or with authorization details, a certificate or DPoP binding.
import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The largest form body looked at; a client-credentials request is a few hundred bytes. */
export const REPLAY_MAX_BODY = 2048;
const MAX_REMEMBERED = 1000;
const REPLAYABLE_AUTH = new Set(['client_secret_basic', 'client_secret_post']);
const KEY = Symbol('client-credentials replay key');

// The library's own check, which its types do not declare: throws once the secret has expired.
type Client = NonNullable<KoaContextWithOIDC['oidc']['client']> & { checkClientSecretExpiration(message: string): void };
type Token = InstanceType<Provider['ClientCredentials']>;
interface Granted {
  client: Client;
  scope: string | undefined;
  resourceServer: Token['resourceServer'];
}
interface Memory {
  granted: Map<string, Granted>;
  isMcpServer: (resource: string) => Promise<boolean>;
}
const memories = new WeakMap<Provider, Memory>();

/** Whether the request can be replayed at all, from what the mount knows before reading the body. */
export function replayCandidate(req: IncomingMessage, below: string, query: string): boolean {
  const { headers } = req;
  return (
    req.method === 'POST' &&
    below === '/token' &&
    query === '' &&
    headers['content-type']?.startsWith('application/x-www-form-urlencoded') === true &&
    headers.dpop === undefined &&
    headers.origin === undefined
  );
}

/** The key of a candidate request once its body is known: the bytes the provider's decision depends on. */
export const replayKey = (req: IncomingMessage, body: Buffer): string =>
  hash('sha256', `${req.headers.authorization ?? ''}\n${req.headers['content-type']}\n${body.toString('latin1')}`, 'base64url');

/** Marks the request the provider is about to decide, so its grant can be remembered. */
export const markForReplay = (req: IncomingMessage, key: string) => void ((req as IncomingMessage & { [KEY]?: string })[KEY] = key);

/** Remembers the Provider's client-credentials grants of marked requests (called once per Provider built). */
export function rememberClientCredentialsGrants(provider: Provider, isMcpServer: Memory['isMcpServer']): void {
  const memory: Memory = { granted: new Map(), isMcpServer };
  memories.set(provider, memory);
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const key = (ctx.req as IncomingMessage & { [KEY]?: string })[KEY];
    const token = ctx.oidc.entities.ClientCredentials;
    const { client } = ctx.oidc;
    if (!key || !token || !client || !REPLAYABLE_AUTH.has(client.clientAuthMethod ?? '')) return;
    if (token.rar || token['x5t#S256'] || token.jkt) return;
    if (memory.granted.size >= MAX_REMEMBERED) memory.granted.delete(memory.granted.keys().next().value!);
    memory.granted.set(key, { client: client as Client, scope: token.scope, resourceServer: token.resourceServer });
  });
}

/**
 * Answers the request from a remembered grant, as the provider's client-credentials handler would (a new token of
 * its model, its token response); false when there is none or it no longer holds, and the provider must decide.
 */
export async function answerFromGrant(provider: Provider, key: string, res: ServerResponse): Promise<boolean> {
  const memory = memories.get(provider);
  const granted = memory?.granted.get(key);
  if (!memory || !granted) return false;
  try {
    granted.client.checkClientSecretExpiration('invalid secret provided');
    const resource = granted.resourceServer?.identifier();
    if (resource !== undefined && !(await memory.isMcpServer(resource))) throw new Error('resource no longer granted');
    const token = new provider.ClientCredentials({ client: granted.client, scope: granted.scope });
    if (granted.resourceServer) token.resourceServer = granted.resourceServer;
    const accessToken = await token.save();
    const body = JSON.stringify({ access_token: accessToken, expires_in: token.expiration, scope: token.scope || undefined, token_type: token.tokenType });
    res.statusCode = 200;
    // The provider's CORS middleware (shared/cors.js) answers a request without an Origin with these three.
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'WWW-Authenticate');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
    return true;
  } catch {
    memory.granted.delete(key);
    return false;
  }
}
