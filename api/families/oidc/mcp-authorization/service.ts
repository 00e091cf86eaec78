// MCP authorization: protected resource metadata for the MCP servers of the trust store, and the setting that opens
// dynamic client registration at the environment's provider (the Provider is rebuilt on the `iam_oidc` NOTIFY).
import type { DatabasePool } from 'slonik';
import { createOidcRegistrationSettingsQueries, type OidcRegistrationSettings } from '../../../../db/oidc/registration/settings.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { notFound } from '../../../errors.ts';
import { findProtectedResource, protectedResourceMetadata } from '../../../oidc/protected-resources.ts';
import { issuerOf, registrationEndpoint } from '../../../oidc/providers.ts';
import type { OidcSettingsResponse } from './schemas.ts';

export function createMcpAuthorizationService(deps: { pool: DatabasePool; publicBaseUrl: string }) {
  const { pool, publicBaseUrl } = deps;
  const view = (environmentId: string, s: OidcRegistrationSettings): OidcSettingsResponse => ({
    settings: {
      environmentId,
      dynamicRegistration: s.dynamicRegistration,
      registrationEndpoint: s.dynamicRegistration ? registrationEndpoint(issuerOf(publicBaseUrl, environmentId)) : null,
      updatedAt: s.updatedAt,
    },
  });

  return {
    protectedResource: async (environmentId: string, entryId: string) => {
      const entry = await findProtectedResource(pool, environmentId, entryId);
      if (!entry) throw notFound('protected_resource', entryId);
      return protectedResourceMetadata(entry, issuerOf(publicBaseUrl, environmentId));
    },

    settings: async (caller: EnvironmentCaller) =>
      view(caller.scope.environmentId, await createOidcRegistrationSettingsQueries(pool, caller.scope.environmentId).find()),

    saveSettings: (caller: EnvironmentCaller, input: { dynamicRegistration: boolean }) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createOidcRegistrationSettingsQueries(trx, environmentId);
        const before = await queries.find();
        const after = await queries.save(input.dynamicRegistration);
        await record(trx, caller, {
          action: 'oidc_settings.update',
          resource: { type: 'environment', id: environmentId },
          before: { dynamicRegistration: before.dynamicRegistration },
          after: { dynamicRegistration: after.dynamicRegistration },
          event: {
            type: 'oidc_settings.updated',
            data: { environmentId, dynamicRegistration: after.dynamicRegistration, previous: { dynamicRegistration: before.dynamicRegistration } },
          },
        });
        return view(environmentId, after);
      }),
  };
}

export type McpAuthorizationService = ReturnType<typeof createMcpAuthorizationService>;
