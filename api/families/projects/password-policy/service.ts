// An environment's password policy (environment-settings scope): read with its defaults, replaced whole.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createPasswordPolicyQueries, DEFAULT_PASSWORD_POLICY, settingsOf, type PasswordPolicyRow } from '../../../../db/password-policy/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { PasswordPolicyBody } from './schemas.ts';

const responseOf = (row: PasswordPolicyRow | null) => {
  if (!row) return { passwordAuthEnabled: DEFAULT_PASSWORD_POLICY.passwordAuthEnabled, policy: null };
  const { passwordAuthEnabled, ...policy } = row;
  return { passwordAuthEnabled, policy };
};

export function createPasswordPolicyService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller) => responseOf(await createPasswordPolicyQueries(pool, caller.scope.environmentId).find()),

    replace: (caller: EnvironmentCaller, body: PasswordPolicyBody) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createPasswordPolicyQueries(trx, environmentId);
        const before = await queries.find(true);
        const previous = before ? settingsOf(before) : DEFAULT_PASSWORD_POLICY;
        const row = await queries.save(body);
        const settings = settingsOf(row);
        await record(trx, caller, {
          action: 'password_policy.update',
          resource: { type: 'environment', id: environmentId },
          before: previous,
          after: settings,
          event: { type: 'password_policy.updated', data: { environmentId, settings, previous } },
        });
        return responseOf(row);
      }),
  };
}

export type PasswordPolicyService = ReturnType<typeof createPasswordPolicyService>;
