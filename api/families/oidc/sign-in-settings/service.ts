// An environment's sign-in page settings: PUT replaces them (a field left out takes its default), with an audit
// entry and `sign_in_settings.updated` in the same transaction; the iam_oidc NOTIFY of the table's trigger makes
// every instance rebuild the environment's Provider, so its pages show the change from the next request on.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createSignInSettingsQueries, DEFAULT_SIGN_IN_SETTINGS, type SignInSettings } from '../../../../db/oidc/sign-in/settings.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { SignInSettingsBody } from './schemas.ts';

const strip = ({ updatedAt, ...settings }: SignInSettings & { updatedAt: string | null }): SignInSettings => (void updatedAt, settings);

export function createSignInSettingsService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller) => ({
      settings: (await createSignInSettingsQueries(pool, caller.scope.environmentId).find()) ?? { ...DEFAULT_SIGN_IN_SETTINGS, updatedAt: null },
    }),

    replace: (caller: EnvironmentCaller, body: SignInSettingsBody) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createSignInSettingsQueries(trx, environmentId);
        const before = await queries.find();
        const previous = before ? strip(before) : DEFAULT_SIGN_IN_SETTINGS;
        const saved = await queries.save({ ...DEFAULT_SIGN_IN_SETTINGS, ...body });
        const settings = strip(saved);
        await record(trx, caller, {
          action: 'sign_in_settings.update',
          resource: { type: 'environment', id: environmentId },
          before: previous,
          after: settings,
          event: { type: 'sign_in_settings.updated', data: { environmentId, settings, previous } },
        });
        return { settings: saved };
      }),
  };
}

export type SignInSettingsService = ReturnType<typeof createSignInSettingsService>;
