// An environment's sign-in setup besides its connections: redirect URIs, SAML IdP metadata resolution, the
// service provider metadata to give an IdP, and the configuration an SDK needs.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import type { EnvironmentRecord } from '../../../../db/projects/projects/rows.ts';
import { createConnectionQueries } from '../../../../db/projects/environment-settings/connections.ts';
import { spKeyOf } from '../../../sso/sp-keys.ts';
import { providerOf, type ProviderId } from './connection-providers.ts';
import { sdkConfig } from './sdk-config.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { scopedEnvironment } from '../environments/service.ts';
import { resolveIdpMetadata } from './saml-metadata.ts';
import { enterpriseSsoMetadata } from './sso-metadata.ts';

export interface EnvironmentSettingsDeps {
  pool: DatabasePool;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
  /** Seals the environment's SAML SP encryption key. */
  masterKey: Buffer;
}

const uris = (e: EnvironmentRecord) => ({ successRedirectUri: e.successRedirectUri, errorRedirectUri: e.errorRedirectUri });
const redirectView = (e: EnvironmentRecord) => ({ environment: { id: e.id, name: e.name }, config: { id: e.id, ...uris(e) } });

export function createEnvironmentSettingsService(deps: EnvironmentSettingsDeps) {
  const { pool, publicBaseUrl: base } = deps;

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

    ssoMetadata: async (caller: EnvironmentCaller, providerId: ProviderId) => {
      const { environmentId } = caller.scope;
      const connections = (await createConnectionQueries(pool, environmentId).findByEnvironment())
        .filter((c) => c.active && c.providerId === providerId)
        .map((c) => ({ id: c.id, name: c.name ?? '' }));
      const saml = providerOf(providerId).protocol === 'saml';
      const encryptionCertificate = saml ? (await spKeyOf(pool, deps.masterKey, environmentId)).certificatePem : undefined;
      return { metadata: enterpriseSsoMetadata(base, environmentId, providerId, { encryptionCertificate, connections }) };
    },

    sdkConfig: (caller: EnvironmentCaller, clientId?: string) => sdkConfig(pool, base, caller, clientId),
  };
}

export type EnvironmentSettingsService = ReturnType<typeof createEnvironmentSettingsService>;
