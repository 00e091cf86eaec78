// Connected apps' lastUsedAt (oidc_client_grants.last_used_at): written when the token endpoint issued a token under
// a user's grant (code exchange, refresh), after the answer and never in its way: fire-and-forget, at most once a
// minute per grant and instance, and the statement itself skips a grant written less than a minute ago, so all
// instances together write it about once a minute. A client acting as itself (client credentials) has no grant.
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createConnectedAppQueries } from '../../db/oidc/connected-apps/queries.ts';

export const GRANT_USE_EVERY_MS = 60_000;
/** Past this many remembered grants, those outside the window are forgotten (bounded memory). */
const MAX_REMEMBERED = 10_000;

export type GrantUse = (environmentId: string, clientId: string, userId: string) => void;

export function createGrantUse(pool: DatabasePool, onError: (error: unknown, environmentId: string) => void): GrantUse {
  const written = new Map<string, number>();
  return (environmentId, clientId, userId) => {
    const now = Date.now();
    const key = `${environmentId} ${clientId} ${userId}`;
    if (now - (written.get(key) ?? 0) < GRANT_USE_EVERY_MS) return;
    if (written.size >= MAX_REMEMBERED) {
      for (const [k, at] of written) if (now - at >= GRANT_USE_EVERY_MS) written.delete(k);
    }
    written.set(key, now);
    createConnectedAppQueries(pool, environmentId)
      .touch(clientId, userId, GRANT_USE_EVERY_MS)
      .catch((error: unknown) => onError(error, environmentId));
  };
}

/** Calls `use` for every token the provider issues under a user's grant. */
export function trackGrantUse(provider: Provider, environmentId: string, use: GrantUse) {
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const grant = ctx.oidc.entities.Grant;
    if (grant?.accountId && grant.clientId) use(environmentId, grant.clientId, grant.accountId);
  });
}
