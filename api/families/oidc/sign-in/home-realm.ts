// Home-realm discovery for the sign-in pages: the environment's SSO connections as "Continue with …" buttons, and
// the connection an email's domain is bound to. A domain is bound when an active SSO connection lists it in its
// `domains` setting and the environment's tenant holds it verified (tenant domains, proven by DNS); the first such
// connection by rank wins. With `requiredForDomains` the connection is the only way in for those emails.
//
// The answer depends only on the identifier's text and the environment's configuration, never on whether a user
// exists, so it tells an attacker nothing about accounts.
import type { DatabasePool } from 'slonik';
import { createHomeRealmQueries } from '../../../../db/oidc/sign-in/home-realm.ts';
import type { ProviderSnapshot } from '../../../../db/oidc/provider/snapshot.ts';
import { providerOf, SSO_PROVIDER_IDS, type ProviderId } from '../../projects/environment-settings/connection-providers.ts';

export interface SsoChoice {
  connectionId: string;
  name: string;
}
export interface HomeRealm extends SsoChoice {
  /** The connection is required for the domain: no password or other factor. */
  required: boolean;
}

/** The lowercase domain of an email-shaped identifier, or null. */
export function emailDomainOf(identifier: string): string | null {
  const at = identifier.lastIndexOf('@');
  if (at <= 0 || at === identifier.length - 1) return null;
  return identifier
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
}

const nameOf = (row: { providerId: string; name: string | null }) => row.name ?? providerOf(row.providerId as ProviderId).name;

const sso = new Set<string>(SSO_PROVIDER_IDS);

export function createHomeRealm(pool: DatabasePool) {
  const queries = (environmentId: string) => createHomeRealmQueries(pool, environmentId, SSO_PROVIDER_IDS);

  /** `snapshot`, when the caller has the Provider: with no active SSO connection in it, no domain can be bound (no query). */
  const realmOfDomain = async (environmentId: string, domain: string | null, snapshot?: ProviderSnapshot): Promise<HomeRealm | null> => {
    if (!domain || (snapshot && !snapshot.connections.some((row) => sso.has(row.providerId)))) return null;
    const row = await queries(environmentId).boundConnection(domain);
    return row ? { connectionId: row.id, name: nameOf(row), required: row.required } : null;
  };

  return {
    /** The environment's active SSO connections in rank order: the identifier page's buttons (from the Provider's snapshot). */
    choices: (snapshot: ProviderSnapshot): SsoChoice[] =>
      snapshot.connections.filter((row) => sso.has(row.providerId)).map((row) => ({ connectionId: row.id, name: nameOf(row) })),

    /** The connection the identifier's email domain is bound to, or null (not an email, or no bound connection). */
    realmOf: (environmentId: string, identifier: string, snapshot?: ProviderSnapshot) => realmOfDomain(environmentId, emailDomainOf(identifier), snapshot),

    /** The connection required for the domain of `email` (a user's address), or null. */
    requiredFor: async (environmentId: string, email: string | null, snapshot?: ProviderSnapshot) => {
      const realm = await realmOfDomain(environmentId, email ? emailDomainOf(email) : null, snapshot);
      return realm?.required ? realm : null;
    },
  };
}

export type HomeRealmService = ReturnType<typeof createHomeRealm>;
