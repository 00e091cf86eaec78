// An environment's protection policies (environment-settings scope): each read as saved (null: off), replaced whole.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createProtectionPolicyQueries, type ProtectionPolicyRow } from '../../../../db/protections/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import type { EventOf } from '../../../../db/event-catalog.ts';
import type { PolicyRoute } from './policies.ts';

const shown = (route: PolicyRoute, row: ProtectionPolicyRow | null) => {
  if (!row) return { [route.key]: null };
  const { id, environmentId, settings, createdAt, updatedAt } = row;
  const extra = route.key === 'restrictions' ? { environmentId } : {};
  return { [route.key]: { id, ...extra, ...settings, createdAt, updatedAt } };
};

export function createProtectionPolicyService(pool: DatabasePool) {
  return {
    find: async (caller: EnvironmentCaller, route: PolicyRoute) =>
      shown(route, await createProtectionPolicyQueries(pool, caller.scope.environmentId).find(route.kind)),

    replace: (caller: EnvironmentCaller, route: PolicyRoute, settings: Record<string, unknown>) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createProtectionPolicyQueries(trx, environmentId);
        const previous = (await queries.find(route.kind, true))?.settings ?? null;
        const row = await queries.save(route.kind, settings);
        await record(trx, caller, {
          action: route.event.replace(/\.updated$/, '.update'),
          resource: { type: 'environment', id: environmentId },
          before: previous,
          after: row.settings,
          event: { type: route.event, data: { environmentId, settings: row.settings, previous } } as EventOf,
        });
        return shown(route, row);
      }),
  };
}

export type ProtectionPolicyService = ReturnType<typeof createProtectionPolicyService>;
