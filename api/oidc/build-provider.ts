// One environment's oidc-provider instance, built from what one read of the database gives (settings, claim
// mappings, allowlist, key ring). This module and oidc-provider (with Koa: about 9 MB of an idle process's RSS) are loaded
// by ./providers.ts when the first Provider is built, so an instance that serves no OpenID traffic never loads them.
import Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createProviderSnapshotQueries } from '../../db/oidc/provider/snapshot.ts';
import { providerConfiguration, type ConfigurationInput } from './configuration.ts';
import { loadKeyRing, providerJwks } from '../../db/oidc/keys/ring.ts';
import { trackGrantUse, type GrantUse } from './grant-use.ts';
import { answerClosedRegistration, registrationFeature } from './registration.ts';
import { conformTokenErrors } from './rfc-errors.ts';
import { forgetSessions } from './remember-me.ts';
import { effectiveSessionConfig } from '../../lib/oidc/session-config.ts';
import type { ModelCache } from '../access/models.ts';
import type { TrustStoreSnapshot } from '../access/trust-stores.ts';
import { issuerOf, UnknownEnvironmentError } from './issuer.ts';
import { rememberSnapshot } from './snapshots.ts';
import { sendBackChannelLogoutsDurably } from './back-channel-logout.ts';
import { rememberClientCredentialsGrants } from './client-credentials-replay.ts';

export interface OidcProvidersDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
  /** How many environments' Providers one instance keeps (OIDC_PROVIDER_CACHE_SIZE). */
  max: number;
  /** Each environment's trust store, kept current by the iam_models NOTIFY: its MCP servers are the resources. */
  trustStores: ModelCache<TrustStoreSnapshot>;
  /** The provider's own server errors (it answers them with a 500 `server_error`). */
  onError?: (error: unknown, environmentId: string) => void;
  /** Records a token issued under a user's grant (connected apps' lastUsedAt); by default ./grant-use.ts. */
  grantUse?: GrantUse;
  /** The retry schedule of back-channel logouts (BACK_CHANNEL_LOGOUT_SCHEDULE), for those of RP-initiated logouts. */
  backChannelLogoutScheduleMs: number[];
  /** A hook for features decided elsewhere (RFC 7591 registration, MCP authorization). */
  extend?: (environmentId: string, input: ConfigurationInput) => Partial<ConfigurationInput>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function buildProvider(deps: OidcProvidersDeps, environmentId: string, vanityHost?: string): Promise<Provider> {
  if (!UUID.test(environmentId)) throw new UnknownEnvironmentError(environmentId);
  const { pool, masterKey } = deps;
  const snapshot = await createProviderSnapshotQueries(pool, environmentId).load();
  if (!snapshot) throw new UnknownEnvironmentError(environmentId);
  const keys = await loadKeyRing(pool, masterKey, environmentId);
  // On a vanity host everything the provider signs or links names that host (issuer, logout tokens).
  const publicBaseUrl = vanityHost ? `https://${vanityHost}` : deps.publicBaseUrl;
  const issuer = issuerOf(publicBaseUrl, environmentId);
  const base: ConfigurationInput = {
    pool,
    masterKey,
    environmentId,
    snapshot,
    jwks: providerJwks(keys, masterKey),
    issuerPath: new URL(issuer).pathname,
    allowPrivateNetworkTargets: deps.allowPrivateNetworkTargets,
    isMcpServer: async (subject) => {
      const entry = (await deps.trustStores.get(environmentId)).get(subject);
      // Only a verified server may be a token's audience: a pending one is not yet trusted (its metadata is served).
      return entry?.kind === 'mcp_server' && entry.status === 'verified';
    },
  };
  const input = { ...base, ...deps.extend?.(environmentId, base) };
  const provider = new Provider(issuer, providerConfiguration(input));
  // The mount hands over the client's address and scheme in X-Forwarded-* (api/families/oidc/provider/mount.ts).
  provider.proxy = true;
  conformTokenErrors(provider);
  answerClosedRegistration(provider, (input.registration ?? registrationFeature(snapshot.dynamicRegistration === true)).enabled === true);
  if (!effectiveSessionConfig(snapshot.sessionConfig).rememberMe) forgetSessions(provider);
  if (deps.grantUse) trackGrantUse(provider, environmentId, deps.grantUse);
  rememberClientCredentialsGrants(provider, input.isMcpServer);
  provider.on('server_error', (_ctx, error) => deps.onError?.(error, environmentId));
  sendBackChannelLogoutsDurably(provider, {
    pool,
    scope: { tenantId: snapshot.tenantId, environmentId },
    settings: { publicBaseUrl, scheduleMs: deps.backChannelLogoutScheduleMs },
  });
  rememberSnapshot(provider, snapshot);
  return provider;
}
