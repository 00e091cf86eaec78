// The environment's client allowlist: when it has entries, a client not in it may not sign the environment's users
// in. The check runs when the authorization (or pushed authorization) request names its client, before any
// redirect, so the refusal is an RFC 6749 `unauthorized_client` answered to the browser, never to a redirect URI.
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { EventEmitter } from 'node:events';
import type Provider from 'oidc-provider';

const SIGN_IN_ROUTES = new Set(['authorization', 'resume', 'pushed_authorization_request', 'code_verification', 'device_authorization']);

export function enforceAllowlist(provider: Provider, allowlist: readonly string[]) {
  if (allowlist.length === 0) return;
  const allowed = new Set(allowlist);
  // Listeners run synchronously inside the provider's client check: a throw here aborts the request.
  // (An event the provider emits but its types do not list.)
  (provider as unknown as EventEmitter).on('assign.client', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    if (SIGN_IN_ROUTES.has(ctx.oidc.route) && !allowed.has(client.clientId)) {
      throw new errors.UnauthorizedClient('this client may not sign in users of this environment (client allowlist)');
    }
  });
}
