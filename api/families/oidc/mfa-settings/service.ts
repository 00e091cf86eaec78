// An environment's MFA policy (environment-settings scope): read with its defaults, replaced whole. Role keys must
// name roles of the environment when saved; a role deleted later simply stops requiring anything.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createMfaRoleQueries } from '../../../../db/mfa/roles.ts';
import { createMfaSettingsQueries, type MfaSettings } from '../../../../db/mfa/settings.ts';
import { invalidField } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { MfaSettingsBody } from './schemas.ts';

const policyOf = ({ mode, requiredRoleKeys, emailCodeSecondFactor, smsSecondFactor, smsRateLimit }: MfaSettings) => ({
  mode,
  requiredRoleKeys,
  emailCodeSecondFactor,
  smsSecondFactor,
  smsRateLimit,
});

export function createMfaSettingsService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller) => ({ settings: await createMfaSettingsQueries(pool, caller.scope.environmentId).find() }),

    replace: (caller: EnvironmentCaller, body: MfaSettingsBody) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const known = await createMfaRoleQueries(trx, environmentId).existingKeys(body.requiredRoleKeys);
        const unknown = body.requiredRoleKeys.findIndex((k) => !known.has(k));
        if (unknown >= 0) throw invalidField(`body.requiredRoleKeys.${unknown}`, `${body.requiredRoleKeys[unknown]} is not a role of this environment`);
        const queries = createMfaSettingsQueries(trx, environmentId);
        const previous = policyOf(await queries.find());
        const settings = await queries.save(body);
        await record(trx, caller, {
          action: 'mfa_settings.update',
          resource: { type: 'environment', id: environmentId },
          before: previous,
          after: policyOf(settings),
          event: { type: 'mfa_settings.updated', data: { environmentId, settings: policyOf(settings), previous } },
        });
        return { settings };
      }),
  };
}

export type MfaSettingsService = ReturnType<typeof createMfaSettingsService>;
