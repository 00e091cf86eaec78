// The environment's client allowlist: when it has entries, a client not in it may not sign the environment's users
// in. oidc-provider runs extra parameter validators on every authorization, pushed authorization, device and CIBA
// request once the client and its redirect URI are checked, so the refusal is an RFC 6749 `unauthorized_client`
// sent back to the client like any other authorization error. Client credentials are no sign-in and stay allowed.
import { errors, type Configuration } from 'oidc-provider';

/** The name the validator hangs on; the parameter itself means nothing and is never read. */
const HOOK_PARAM = 'x_client_allowlist';

export function allowlistParams(allowlist: readonly string[]): Configuration['extraParams'] {
  if (allowlist.length === 0) return [];
  const allowed = new Set(allowlist);
  return {
    [HOOK_PARAM]: (_ctx, _value, client) => {
      if (!allowed.has(client.clientId)) throw new errors.UnauthorizedClient('this client may not sign in users of this environment (client allowlist)');
    },
  };
}
