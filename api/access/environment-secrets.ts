// Resolves an environment credential to the environment it selects: an environment API secret (adenv_…) or a
// provisioning token (adscim_…, adhris_…), whose kind stands as its one purpose. Like bearer tokens (principals.ts),
// verified credentials are cached and evicted through the `iam_credentials` NOTIFY that triggers on api_secrets and
// provisioning_tokens send, so a revoked or rotated-out one is refused on the next request on every instance.
import type { DatabasePool } from 'slonik';
import { hasValidChecksum, hashSecret } from '../../lib/crypto.ts';
import { createApiSecretAccessQueries, type SecretAccess } from '../../db/access/api-secrets/access.ts';
import { createProvisioningTokenAccessQueries } from '../../db/provisioning/provisioning-tokens/access.ts';
import { AuthenticationError } from './principals.ts';

export interface EnvironmentSecretPrincipal {
  /** What the credential is: an environment API secret (adenv_…) or a provisioning token (adscim_…, adhris_…). */
  credential: 'api_secret' | 'provisioning_token';
  secretId: string;
  environmentId: string;
  tenantId: string;
  purposes: string[];
  /** When the presented value stops working (ms since epoch): its expiry, or the end of a rotation's grace period. */
  expiresAt: number | null;
  /** Requests a minute the credential may make (per instance); null: the default of its kind. */
  rateLimitPerMinute: number | null;
}

export interface EnvironmentSecretAuthenticator {
  authenticate(secret: string): Promise<EnvironmentSecretPrincipal>;
  /** The principal of a secret verified earlier and still cached, without waiting (the hot path). */
  cached(secret: string): EnvironmentSecretPrincipal | undefined;
  /** Whether this instance verified the secret before (its cache entry may have expired since), and it was not evicted. */
  known(secret: string): boolean;
  evict(id: string): void;
  clear(): void;
}

const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX = 10_000;
const TOUCH_EVERY_MS = 60_000;

/** How each kind of environment credential is found by the hash of its value, and what it is called in messages. */
const KINDS = {
  adenv: {
    credential: 'api_secret',
    noun: 'environment API secret',
    find: (pool: DatabasePool, hash: Buffer) => createApiSecretAccessQueries(pool).findSecretAccessByHash(hash),
    touch: (pool: DatabasePool, id: string) => createApiSecretAccessQueries(pool).touchSecret(id),
  },
  adscim: {
    credential: 'provisioning_token',
    noun: 'provisioning token',
    find: (pool: DatabasePool, hash: Buffer) => createProvisioningTokenAccessQueries(pool).findTokenAccessByHash(hash),
    touch: (pool: DatabasePool, id: string) => createProvisioningTokenAccessQueries(pool).touchToken(id),
  },
} as const satisfies Record<string, { credential: EnvironmentSecretPrincipal['credential']; noun: string; find: unknown; touch: unknown }>;
const kindOf = (secret: string) => {
  const prefix = secret.slice(0, secret.indexOf('_'));
  if (prefix === 'adenv') return { prefix, ...KINDS.adenv } as const;
  if (prefix === 'adscim' || prefix === 'adhris') return { prefix, ...KINDS.adscim } as const;
  return undefined;
};

const earliest = (...times: (string | null)[]) => {
  const epochs = times.filter((t): t is string => t !== null).map(Date.parse);
  return epochs.length ? Math.min(...epochs) : null;
};

export function createEnvironmentSecretAuthenticator(deps: { pool: DatabasePool; onError: (e: unknown) => void }): EnvironmentSecretAuthenticator {
  const cache = new Map<string, { principal: EnvironmentSecretPrincipal; until: number }>();
  const touched = new Map<string, number>();

  const verify = async (secret: string): Promise<EnvironmentSecretPrincipal> => {
    const kind = kindOf(secret);
    if (!kind || !hasValidChecksum(secret, kind.prefix)) throw new AuthenticationError(`The ${kind?.noun ?? 'environment API secret'} is malformed.`);
    const noun = `The ${kind.noun}`;
    const found: SecretAccess | null = await kind.find(deps.pool, hashSecret(secret));
    if (!found) throw new AuthenticationError(`${noun} is invalid.`);
    if (found.revokedAt) throw new AuthenticationError(`${noun} has been revoked.`);
    const expiresAt = earliest(found.expiresAt, found.previous ? found.previousExpiresAt : null);
    if (found.previous && found.previousExpiresAt === null) throw new AuthenticationError(`${noun} has been rotated.`);
    if (expiresAt !== null && expiresAt <= Date.now()) {
      throw new AuthenticationError(found.previous ? `${noun} has been rotated.` : `${noun} has expired.`);
    }
    const now = Date.now();
    if (now - (touched.get(found.id) ?? 0) >= TOUCH_EVERY_MS) {
      touched.set(found.id, now);
      kind.touch(deps.pool, found.id).catch(deps.onError);
    }
    return {
      credential: kind.credential,
      secretId: found.id,
      environmentId: found.environmentId,
      tenantId: found.tenantId,
      purposes: found.purposes,
      expiresAt,
      rateLimitPerMinute: found.rateLimitPerMinute,
    };
  };

  const cached = (secret: string) => {
    const hit = cache.get(secret);
    return hit && hit.until > Date.now() ? hit.principal : undefined;
  };

  return {
    cached,
    known: (secret) => cache.has(secret),
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
