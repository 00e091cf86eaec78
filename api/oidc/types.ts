// The environments' OpenID providers as the rest of the API sees them: one oidc-provider instance per environment,
// built on first use and rebuilt after an `iam_oidc` NOTIFY names its environment (see ./providers.ts).
import type Provider from 'oidc-provider';

export interface OidcProviders {
  /** The environment's Provider, built on first use; on an active vanity host, the Provider whose issuer is on that host. */
  get(environmentId: string, vanityHost?: string): Promise<Provider>;
  /** Drops the environment's Provider (called on NOTIFY); the next use rebuilds it. */
  evict(environmentId: string): void;
  /** Drops every Provider (the listener may have missed notifications). */
  clear(): void;
}
