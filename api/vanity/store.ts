// The certificate store of active vanity domains: host name → its environment and a TLS context built from its
// chain and (unsealed) key. Read by the HTTPS listener's SNICallback and by the OpenID mount (the issuer on a
// vanity host); an entry is dropped when an `iam_vanity` NOTIFY names its host (api/app.ts), so a new, renewed or
// removed certificate is served from the next handshake on.
import { createSecureContext, type SecureContext } from 'node:tls';
import type { DatabasePool } from 'slonik';
import { decrypt } from '../../lib/crypto.ts';
import { createVanityServedQueries } from '../../db/vanity-domains/process.ts';

export interface ServedHost {
  environmentId: string;
  context: SecureContext;
}

export interface VanityStore {
  /** The active vanity domain of `hostname` (lowercase), or null. */
  served(hostname: string): Promise<ServedHost | null>;
  evict(hostname: string): void;
  clear(): void;
}

/** Host names remembered (including those that are not vanity domains); past it the store starts over. */
const MAX_ENTRIES = 10_000;

export function createVanityStore(deps: { pool: DatabasePool; masterKey: Buffer }): VanityStore {
  const entries = new Map<string, Promise<ServedHost | null>>();
  const load = async (hostname: string): Promise<ServedHost | null> => {
    const row = await createVanityServedQueries(deps.pool).byHostname(hostname);
    if (!row) return null;
    return { environmentId: row.environmentId, context: createSecureContext({ cert: row.chain, key: decrypt(deps.masterKey, row.keySealed) }) };
  };
  return {
    served: (hostname) => {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      let entry = entries.get(name);
      if (!entry) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entry = load(name);
        entries.set(name, entry);
        // A failed read is not remembered: the next handshake reads again.
        entry.catch(() => entries.get(name) === entry && entries.delete(name));
      }
      return entry;
    },
    evict: (hostname) => void entries.delete(hostname),
    clear: () => entries.clear(),
  };
}
