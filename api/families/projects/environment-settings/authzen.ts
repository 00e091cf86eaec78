// An environment's AuthZEN settings: the kind of identifier PEPs name subjects by (`subjectIdentifier`, default
// `any`: id, externalId or userName, kept unambiguous by the directory's uniqueness across kinds, 0026), or one kind
// alone, never a fallback to another, so an id of one kind equal to another user's id of another kind (an HRIS
// externalId equal to someone's userName) cannot take over that user's decisions.
import type { DatabasePool } from 'slonik';
import { createAuthzenSettingsQueries } from '../../../../db/projects/environment-settings/authzen.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import type { SubjectIdentifier } from '../../../../lib/authz/model.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';

const view = (environmentId: string, subjectIdentifier: SubjectIdentifier) => ({ settings: { environmentId, subjectIdentifier } });

export function createAuthzenSettingsService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller) => {
      const { environmentId } = caller.scope;
      return view(environmentId, (await createAuthzenSettingsQueries(pool).find(environmentId)).subjectIdentifier);
    },

    save: (caller: EnvironmentCaller, input: { subjectIdentifier: SubjectIdentifier }) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createAuthzenSettingsQueries(trx);
        const before = await queries.find(environmentId);
        await queries.save(environmentId, input.subjectIdentifier);
        await record(trx, caller, {
          action: 'environment.authzen_settings.save',
          resource: { type: 'environment', id: environmentId },
          before,
          after: input,
          event: {
            type: 'environment.authzen_settings.saved',
            data: { environmentId, subjectIdentifier: input.subjectIdentifier, previous: before.subjectIdentifier },
          },
        });
        return view(environmentId, input.subjectIdentifier);
      }),
  };
}

export type AuthzenSettingsService = ReturnType<typeof createAuthzenSettingsService>;
