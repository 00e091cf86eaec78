// Hands a request under an environment's issuer (`/v1/oidc/{environmentId}/…`) to that environment's Provider,
// as oidc-provider documents mounting in another framework: the raw request and response, `originalUrl` the full
// path and `url` the part below the mount, so the provider derives its mount path from the difference.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../../../oidc/types.ts';
import { UnknownEnvironmentError } from '../../../oidc/providers.ts';
import type { VanityStore } from '../../../vanity/store.ts';
import { answerFromGrant, markForReplay, REPLAY_MAX_BODY, replayCandidate, replayKey } from '../../../oidc/client-credentials-replay.ts';
import { peekBody } from './peek-body.ts';

type Callback = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

// The service's security headers that suit the provider's answers too; its CSP would break the provider's
// form_post and logout pages, and a same-origin CORP its cross-origin JSON (discovery, JWKS, token).
const KEPT_HEADERS = ['x-request-id', 'x-content-type-options', 'strict-transport-security', 'referrer-policy', 'x-frame-options'];

export function createMount(oidc: OidcProviders, publicBaseUrl: string, vanity?: VanityStore) {
  const base = new URL(publicBaseUrl);
  // A PUBLIC_BASE_URL with a path (a proxy strips it) still yields endpoint URLs under it.
  const basePath = base.pathname.replace(/\/$/, '');
  const callbacks = new WeakMap<Provider, Callback>();
  const callbackOf = (provider: Provider) => {
    let callback = callbacks.get(provider);
    if (!callback) callbacks.set(provider, (callback = provider.callback() as Callback));
    return callback;
  };

  /** `below`: the provider path to serve; by default what follows the issuer in the request path. */
  return async function mount(request: FastifyRequest, reply: FastifyReply, environmentId: string, below?: string) {
    // On an active vanity domain of this environment the issuer is https://<vanity host>/v1/oidc/<environmentId>.
    const vanityHost =
      request.hostname !== base.hostname && (await vanity?.served(request.hostname))?.environmentId === environmentId
        ? request.hostname.toLowerCase()
        : undefined;
    let provider: Provider;
    try {
      provider = await oidc.get(environmentId, vanityHost);
    } catch (error) {
      if (!(error instanceof UnknownEnvironmentError)) throw error;
      return reply
        .code(404)
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_request', error_description: 'no OpenID provider at this issuer', code: 'oidc.unknown_issuer', requestId: request.id });
    }
    const req = request.raw as IncomingMessage & { originalUrl?: string };
    const [path = '', ...rest] = (req.url ?? '').split('?');
    const query = rest.length > 0 ? `?${rest.join('?')}` : '';
    below ??= path
      .split('/')
      .slice(4)
      .map((s) => `/${s}`)
      .join('');
    req.originalUrl = `${vanityHost ? '' : basePath}/v1/oidc/${environmentId}${below}${query}`;
    req.url = `${below || '/'}${query}`;
    // The provider trusts these (provider.proxy): the scheme and host of PUBLIC_BASE_URL, so every URL it builds
    // matches its issuer, and the client address as Fastify resolved it under TRUST_PROXY.
    req.headers['x-forwarded-proto'] = vanityHost ? 'https' : base.protocol.slice(0, -1);
    req.headers['x-forwarded-host'] = vanityHost ?? base.host;
    req.headers['x-forwarded-for'] = request.ip;
    req.headers['x-request-id'] = request.id;
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.hijack();
    // A client-credentials request the provider granted before, byte for byte, is answered without its pipeline.
    const body = replayCandidate(req, below, query) ? await peekBody(req, REPLAY_MAX_BODY) : undefined;
    if (body) {
      const key = replayKey(req, body);
      if (await answerFromGrant(provider, key, reply.raw)) return;
      markForReplay(req, key);
    }
    await callbackOf(provider)(req, reply.raw);
  };
}
