// Who calls the FGA API and which store: an environment API secret with the purpose `fga` (its environment's store
// only), or a management bearer token whose store the scope guard resolved (api/access/reach.ts, `STORE_OF`). A
// store that is not the caller's is 404, like an unknown one.
import type { FastifyRequest } from 'fastify';
import { recordChange, type Actor, type RequestOrigin } from '../../../../db/shared/changes.ts';
import { createFgaStoreQueries } from '../../../../db/access/fga/stores.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { environmentIdOf, storeIdOf } from '../../../../lib/fga/store-id.ts';
import type { TenantOf } from '../../../access/reach.ts';
import type { CallerChange } from '../../../access/caller.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { FgaApiError } from '../../../fga/errors.ts';

export interface FgaCaller {
  environmentId: string;
  storeId: string;
  actor: Actor;
  origin: RequestOrigin;
  scope: { organizationId: string | null; tenantId: string; environmentId: string };
}

/** How the scope guard finds the tenant of `:store_id` for a bearer caller. */
export const STORE_OF: TenantOf = {
  param: 'store_id',
  resource: 'store',
  find: (db, environmentId) => createFgaStoreQueries(db).tenantOf(environmentId),
  idOf: environmentIdOf,
  environment: true,
};

export const storeNotFound = (storeId: string) => new FgaApiError(404, 'store_id_not_found', `Store '${storeId}' not found`);

export function fgaCallerOf(request: FastifyRequest): FgaCaller {
  const given = (request.params as { store_id: string }).store_id;
  const origin: RequestOrigin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id };
  const secret = request.environmentSecret;
  if (secret) {
    if (environmentIdOf(given) !== secret.environmentId) throw storeNotFound(given);
    return {
      environmentId: secret.environmentId,
      storeId: storeIdOf(secret.environmentId),
      actor: { type: 'api_secret', id: secret.secretId },
      origin,
      scope: { organizationId: null, tenantId: secret.tenantId, environmentId: secret.environmentId },
    };
  }
  const caller = callerOf(request, 'environment');
  return {
    environmentId: caller.scope.environmentId,
    storeId: storeIdOf(caller.scope.environmentId),
    actor: caller.actor,
    origin,
    scope: { organizationId: caller.scope.organizationId, tenantId: caller.scope.tenant.id, environmentId: caller.scope.environmentId },
  };
}

/** Records the audit entry and event of a change to the store, inside the change's transaction. */
export const recordFga = <T extends EventType>(db: Parameters<typeof recordChange>[0], caller: FgaCaller, change: CallerChange<T>) =>
  recordChange<T>(db, { ...change, actor: caller.actor, origin: caller.origin, scope: { ...caller.scope, ...change.scope } });
