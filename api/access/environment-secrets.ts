// Resolves an environment API secret (adenv_…) to the environment it selects. Like bearer tokens (principals.ts),
// verified secrets are cached and evicted through the `iam_credentials` NOTIFY that triggers on api_secrets send,
// so a revoked or rotated-out secret is refused on the next request on every instance.
import type { DatabasePool } from 'slonik';
import { hasValidChecksum, hashSecret } from '../../lib/crypto.ts';
import { createApiSecretAccessQueries } from '../../db/access/api-secrets/access.ts';
import { AuthenticationError } from './principals.ts';

export interface EnvironmentSecretPrincipal {
  secretId: string;
  environmentId: string;
  tenantId: string;
  purposes: string[];
  /** When the presented value stops working (ms since epoch): its expiry, or the end of a rotation's grace period. */
  expiresAt: number | null;
}

export interface EnvironmentSecretAuthenticator {
  authenticate(secret: string): Promise<EnvironmentSecretPrincipal>;
  /** The principal of a secret verified earlier and still cached, without waiting (the hot path). */
  cached(secret: string): EnvironmentSecretPrincipal | undefined;
  evict(id: string): void;
  clear(): void;
}

const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX = 10_000;
const TOUCH_EVERY_MS = 60_000;

const earliest = (...times: (string | null)[]) => {
  const epochs = times.filter((t): t is string => t !== null).map(Date.parse);
  return epochs.length ? Math.min(...epochs) : null;
};

export function createEnvironmentSecretAuthenticator(deps: { pool: DatabasePool; onError: (e: unknown) => void }): EnvironmentSecretAuthenticator {
  const cache = new Map<string, { principal: EnvironmentSecretPrincipal; until: number }>();
  const touched = new Map<string, number>();

  const verify = async (secret: string): Promise<EnvironmentSecretPrincipal> => {
    if (!hasValidChecksum(secret, 'adenv')) throw new AuthenticationError('The environment API secret is malformed.');
    const queries = createApiSecretAccessQueries(deps.pool);
    const found = await queries.findSecretAccessByHash(hashSecret(secret));
    if (!found) throw new AuthenticationError('The environment API secret is invalid.');
    if (found.revokedAt) throw new AuthenticationError('The environment API secret has been revoked.');
    const expiresAt = earliest(found.expiresAt, found.previous ? found.previousExpiresAt : null);
    if (found.previous && found.previousExpiresAt === null) throw new AuthenticationError('The environment API secret has been rotated.');
    if (expiresAt !== null && expiresAt <= Date.now()) {
      throw new AuthenticationError(found.previous ? 'The environment API secret has been rotated.' : 'The environment API secret has expired.');
    }
    const now = Date.now();
    if (now - (touched.get(found.id) ?? 0) >= TOUCH_EVERY_MS) {
      touched.set(found.id, now);
      queries.touchSecret(found.id).catch(deps.onError);
    }
    return { secretId: found.id, environmentId: found.environmentId, tenantId: found.tenantId, purposes: found.purposes, expiresAt };
  };

  const cached = (secret: string) => {
    const hit = cache.get(secret);
    return hit && hit.until > Date.now() ? hit.principal : undefined;
  };

  return {
    cached,
    authenticate: async (secret) => {
      const hit = cached(secret);
      if (hit) return hit;
      const now = Date.now();
      const principal = await verify(secret);
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(secret, { principal, until: Math.min(now + CACHE_TTL_MS, principal.expiresAt ?? Infinity) });
      return principal;
    },
    evict: (id) => {
      for (const [secret, entry] of cache) {
        if (entry.principal.secretId === id || entry.principal.environmentId === id) cache.delete(secret);
      }
    },
    clear: () => cache.clear(),
  };
}
