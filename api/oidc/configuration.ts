// The oidc-provider configuration of one environment: features, TTLs from its session config, keys, cookies,
// accounts and storage. Building it reads nothing: ./providers.ts passes what it loaded.
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { effectiveSessionConfig } from '../../lib/oidc/session-config.ts';
import type { ProviderSnapshot } from '../../db/oidc/provider/snapshot.ts';
import { createAdapterFactory } from './adapter.ts';
import { accountTokenClaims, createFindAccount, SCOPE_CLAIMS } from './accounts.ts';
import { cookieKeys, cookieSigner } from './cookies.ts';
import { renderError } from './render-error.ts';
import { allowlistParams } from './allowlist.ts';
import { logoutPages } from './logout-pages.ts';
import { registrationFeature } from './registration.ts';
import { stepUpPolicy } from './mfa-step-up.ts';
import { ACR_VALUES } from './acr.ts';

export interface ConfigurationInput {
  pool: DatabasePool;
  masterKey: Buffer;
  environmentId: string;
  snapshot: ProviderSnapshot;
  jwks: { keys: JWK[] };
  /** The path of the issuer (`/v1/oidc/{environmentId}`, behind any path of PUBLIC_BASE_URL). */
  issuerPath: string;
  /** ALLOW_PRIVATE_NETWORK_TARGETS: back-channel logout and client JWKS may then reach private addresses. */
  allowPrivateNetworkTargets: boolean;
  /** Resource indicators (RFC 8707): whether `subject` is an MCP server of the trust store, neither suspended nor revoked. */
  isMcpServer: (subject: string) => Promise<boolean>;
  /** RFC 7591 registration, enabled by the MCP authorization work (oidc_settings.dynamic_registration). */
  registration?: NonNullable<Configuration['features']>['registration'];
}

const AUTHORIZATION_CODE_TTL = 60;
const INTERACTION_TTL = 3600;

export function providerConfiguration(input: ConfigurationInput): Configuration {
  const { pool, environmentId, snapshot } = input;
  const session = effectiveSessionConfig(snapshot.sessionConfig);
  const mappings = snapshot.claimMappings;
  return {
    adapter: createAdapterFactory({
      pool,
      masterKey: input.masterKey,
      environmentId,
      tenantId: snapshot.tenantId,
      idleLifetimeSeconds: session.idleLifetimeSeconds,
    }),
    findAccount: createFindAccount(pool, environmentId, mappings),
    jwks: input.jwks as Configuration['jwks'],
    cookies: {
      keys: cookieSigner(cookieKeys(input.masterKey, environmentId)),
      // Scoped to the issuer's path: two environments on one host keep separate sessions in one browser.
      long: { signed: true, httpOnly: true, sameSite: 'lax', path: input.issuerPath },
      short: { signed: true, httpOnly: true, sameSite: 'lax', path: input.issuerPath },
    },
    // Mapped claims ride with the openid scope, so every ID token carries them.
    acrValues: ACR_VALUES,
    claims: { ...SCOPE_CLAIMS, openid: ['sub', 'acr', 'amr', ...mappings.map((m) => m.claimName)] },
    // The scopes' claims go in the ID token too, not only at userinfo.
    conformIdTokenClaims: false,
    scopes: ['openid', 'offline_access', 'profile', 'email', 'phone', 'address'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: {
      properties: ['pkce_required', 'agent_sign_in'],
      validator: (_ctx, key, value) => {
        if ((key === 'pkce_required' || key === 'agent_sign_in') && value !== undefined && typeof value !== 'boolean') {
          throw new errors.InvalidClientMetadata(`${key} must be a boolean`);
        }
      },
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'RS256'],
      userinfoSigningAlgValues: ['ES256', 'RS256'],
      introspectionSigningAlgValues: ['ES256', 'RS256'],
      authorizationSigningAlgValues: ['ES256', 'RS256'],
      requestObjectSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      clientAuthSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA', 'HS256'],
      dPoPSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'],
    },
    pkce: {
      // S256 only (oidc-provider 9 offers no other); required for public clients and those that say so.
      required: (_ctx, client) => client.tokenEndpointAuthMethod === 'none' || client['pkce_required'] === true,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A client introspects its own tokens; a confidential client (a resource server) any token of the environment.
      introspection: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId || client.clientAuthMethod !== 'none' },
      // A client revokes only its own tokens (RFC 7009 2.1).
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      rpInitiatedLogout: { enabled: true, ...logoutPages(snapshot.signIn) },
      backchannelLogout: { enabled: true },
      dPoP: { enabled: true },
      pushedAuthorizationRequests: { enabled: true },
      registration: input.registration ?? registrationFeature(snapshot.dynamicRegistration === true),
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, resourceIndicator) => {
          if (!(await input.isMcpServer(resourceIndicator))) throw new errors.InvalidTarget('resource is not a registered MCP server of this environment');
          // At the token endpoint of a code or refresh grant no scope is sent: the scopes granted for the resource count.
          const granted = ctx.oidc.entities.Grant?.getResourceScope(resourceIndicator) ?? '';
          const requested = typeof ctx.oidc.params?.scope === 'string' ? ctx.oidc.params.scope : granted;
          return {
            scope: requested
              .split(' ')
              .filter((s) => s && s !== 'openid' && s !== 'offline_access')
              .join(' '),
            audience: resourceIndicator,
            accessTokenTTL: session.accessTokenLifetimeSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    extraParams: allowlistParams(snapshot.allowlist),
    extraTokenClaims: async (_ctx, token) => {
      const accountId = 'accountId' in token ? token.accountId : undefined;
      return accountId ? accountTokenClaims(pool, environmentId, mappings, accountId) : undefined;
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && client['agent_sign_in'] !== true && code.scopes.has('offline_access'),
    ttl: {
      AccessToken: session.accessTokenLifetimeSeconds,
      ClientCredentials: session.accessTokenLifetimeSeconds,
      IdToken: session.idTokenLifetimeSeconds,
      RefreshToken: session.refreshTokenLifetimeSeconds,
      Session: session.absoluteLifetimeSeconds,
      Grant: Math.max(session.absoluteLifetimeSeconds, session.refreshTokenLifetimeSeconds),
      AuthorizationCode: AUTHORIZATION_CODE_TTL,
      Interaction: INTERACTION_TTL,
      BackchannelAuthenticationRequest: 600,
      DeviceCode: 600,
    },
    interactions: {
      // The sign-in pages (login, consent) live at {issuer}/interaction/{uid}; this service never renders dev pages.
      url: (_ctx: KoaContextWithOIDC, interaction) => `${input.issuerPath}/interaction/${interaction.uid}`,
      policy: stepUpPolicy(),
    },
    renderError,
    // oidc-provider refuses special-use addresses on its outbound calls itself; the operator may allow them.
    ...(input.allowPrivateNetworkTargets
      ? { fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, dispatcher: undefined } as RequestInit) }
      : {}),
  };
}
