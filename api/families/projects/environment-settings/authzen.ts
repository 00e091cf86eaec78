// An environment's AuthZEN settings: the kind of identifier PEPs name subjects by (`subjectIdentifier`, default
// `any`: id, externalId or userName, kept unambiguous by the directory's uniqueness across kinds, 0026), or one kind
// alone, never a fallback to another, so an id of one kind equal to another user's id of another kind (an HRIS
// externalId equal to someone's userName) cannot take over that user's decisions. `resourceTypeEngines` names the
// types RBAC or FGA decides against the default (api/families/access/authzen/engines.ts).
import type { DatabasePool } from 'slonik';
import { createAuthzenSettingsQueries, type AuthzenSettings } from '../../../../db/projects/environment-settings/authzen.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';

const view = (environmentId: string, settings: AuthzenSettings) => ({ settings: { environmentId, ...settings } });

export function createAuthzenSettingsService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller) => {
      const { environmentId } = caller.scope;
      return view(environmentId, await createAuthzenSettingsQueries(pool).find(environmentId));
    },

    /** A field left out keeps its saved value. */
    save: (caller: EnvironmentCaller, input: Partial<AuthzenSettings>) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createAuthzenSettingsQueries(trx);
        const before = await queries.find(environmentId);
        const after: AuthzenSettings = {
          subjectIdentifier: input.subjectIdentifier ?? before.subjectIdentifier,
          resourceTypeEngines: input.resourceTypeEngines ?? before.resourceTypeEngines,
        };
        await queries.save(environmentId, after);
        await record(trx, caller, {
          action: 'environment.authzen_settings.save',
          resource: { type: 'environment', id: environmentId },
          before,
          after,
          event: {
            type: 'environment.authzen_settings.saved',
            data: { environmentId, ...after, previous: before.subjectIdentifier, previousResourceTypeEngines: before.resourceTypeEngines },
          },
        });
        return view(environmentId, after);
      }),
  };
}

export type AuthzenSettingsService = ReturnType<typeof createAuthzenSettingsService>;
