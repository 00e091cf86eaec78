// An environment's sign-in setup besides its connections: redirect URIs, SAML IdP metadata resolution, the
// service provider metadata to give an IdP, and the configuration an SDK needs.
import { exportSPKI, importJWK, type CryptoKey } from 'jose';
import type { DatabasePool } from 'slonik';
import { createConnectionQueries } from '../../../../db/projects/environment-settings/connections.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import type { EnvironmentRecord } from '../../../../db/projects/projects/rows.ts';
import type { ProviderId } from './connection-providers.ts';
import type { EnvironmentSdkConfig } from './schemas.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { scopedEnvironment } from '../environments/service.ts';
import { resolveIdpMetadata } from './saml-metadata.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';
import { enterpriseSsoMetadata } from './sso-metadata.ts';

export interface EnvironmentSettingsDeps {
  pool: DatabasePool;
  keys: SigningKeys;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
}

const uris = (e: EnvironmentRecord) => ({ successRedirectUri: e.successRedirectUri, errorRedirectUri: e.errorRedirectUri });
const redirectView = (e: EnvironmentRecord) => ({ environment: { id: e.id, name: e.name }, config: { id: e.id, ...uris(e) } });

export function createEnvironmentSettingsService(deps: EnvironmentSettingsDeps) {
  const { pool, publicBaseUrl: base } = deps;

  /** PEM (SPKI) of the key that signs tokens now; verifiers should prefer the JWKS, which follows rotations. */
  const currentPublicKey = async () => {
    const { kid } = deps.keys.current();
    const jwk = deps.keys.jwks().keys.find((k) => k.kid === kid);
    return jwk ? exportSPKI((await importJWK(jwk, 'ES256', { extractable: true })) as CryptoKey) : undefined;
  };

  return {
    redirectUris: async (caller: EnvironmentCaller) => redirectView(await scopedEnvironment(pool, caller)),

    saveRedirectUris: (caller: EnvironmentCaller, input: { successRedirectUri: string; errorRedirectUri?: string | null }) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const before = await scopedEnvironment(trx, caller);
        const env = await createEnvironmentQueries(trx, caller.scope.tenant.id).setRedirectUris(environmentId, {
          successRedirectUri: input.successRedirectUri,
          errorRedirectUri: input.errorRedirectUri ?? null,
        });
        await record(trx, caller, {
          action: 'environment.redirect_uris.save',
          resource: { type: 'environment', id: env.id },
          before: uris(before),
          after: uris(env),
          event: {
            type: 'environment.redirect_uris.saved',
            data: { environmentId, successRedirectUri: input.successRedirectUri, errorRedirectUri: env.errorRedirectUri },
          },
        });
        return redirectView(env);
      }),

    resolveSamlMetadata: async (input: { metadataUrl?: string; metadataXml?: string }) => ({
      metadata: await resolveIdpMetadata(input, { allowPrivate: deps.allowPrivateNetworkTargets }),
    }),

    ssoMetadata: (caller: EnvironmentCaller, providerId: ProviderId) => ({ metadata: enterpriseSsoMetadata(base, caller.scope.environmentId, providerId) }),

    sdkConfig: async (caller: EnvironmentCaller): Promise<EnvironmentSdkConfig> => {
      const env = await scopedEnvironment(pool, caller);
      const environmentId = env.id;
      const settings = `/v1/tenants/${caller.scope.tenant.id}/environments/${environmentId}`;
      const warnings = [
        ...(env.successRedirectUri ? [] : [`No redirect URI is set: users have nowhere to return after signing in (PUT ${settings}/redirect-uris).`]),
        ...((await createConnectionQueries(pool, environmentId).countActive()) > 0
          ? []
          : [`No sign-in connection is configured: users cannot sign in (POST ${settings}/connections).`]),
      ];
      const endpoints = {
        issuer: base,
        jwks: `${base}/.well-known/jwks.json`,
        token: `${base}/v1/oauth/token`,
        authorize: `${base}/v1/oauth/authorize`,
        userinfo: `${base}/v1/userinfo`,
        sso: `${base}/v1/sso/${environmentId}`,
      };
      const envVars: Record<string, string> = {
        IAM_CLIENT_ID: env.clientId,
        IAM_ENVIRONMENT_ID: env.id,
        IAM_ISSUER_URL: endpoints.issuer,
        IAM_JWKS_URL: endpoints.jwks,
        ...(env.successRedirectUri ? { IAM_REDIRECT_URI: env.successRedirectUri } : {}),
      };
      const publicKey = await currentPublicKey();
      return { clientId: env.clientId, ...(publicKey ? { publicKey } : {}), endpoints, envVars, warnings };
    },
  };
}

export type EnvironmentSettingsService = ReturnType<typeof createEnvironmentSettingsService>;
