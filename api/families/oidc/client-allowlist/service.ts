// The client allowlist of an environment: when it has entries, only those clients may sign its users in. Only clients
// of the environment can be added; deleting a client leaves its entry (so a list that named only it keeps every
// other client out) until it is removed here.
import type { DatabasePool } from 'slonik';
import { createClientAllowlistQueries } from '../../../../db/oidc/client-allowlist/queries.ts';
import { createOidcClientQueries } from '../../../../db/oidc/clients/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { invalidField, notFound } from '../../../errors.ts';

type Trx = Parameters<typeof createClientAllowlistQueries>[0];

export function createClientAllowlistService(pool: DatabasePool) {
  const view = async (db: Trx, environmentId: string) => ({ entries: await createClientAllowlistQueries(db, environmentId).list() });

  /** Runs `change` on the locked list and records it when the list of client ids differs. */
  const edit = (caller: EnvironmentCaller, change: (trx: Trx, before: string[]) => Promise<void>) =>
    pool.transaction(async (trx) => {
      const { environmentId } = caller.scope;
      const queries = createClientAllowlistQueries(trx, environmentId);
      await queries.lock();
      const before = (await queries.list()).map((e) => e.clientId);
      await change(trx, before);
      const result = await view(trx, environmentId);
      const after = result.entries.map((e) => e.clientId);
      if (after.join('\n') !== before.join('\n')) {
        await record(trx, caller, {
          action: 'oidc_client_allowlist.update',
          resource: { type: 'environment', id: environmentId },
          before: { clientIds: before },
          after: { clientIds: after },
          event: { type: 'oidc_client_allowlist.updated', data: { environmentId, clientIds: after } },
        });
      }
      return result;
    });

  /** 400 naming the first client id that is no client of the environment (`body.clientIds.N`, or `path` alone). */
  const checkClients = async (trx: Trx, caller: EnvironmentCaller, clientIds: string[], path: (i: number) => string) => {
    const existing = await createOidcClientQueries(trx, caller.scope.environmentId).existing(clientIds);
    const missing = clientIds.findIndex((id) => !existing.has(id));
    if (missing >= 0) throw invalidField(path(missing), `${clientIds[missing]} is not an OIDC client of this environment`, 'oidc_client.not_found');
  };

  return {
    get: (caller: EnvironmentCaller) => view(pool, caller.scope.environmentId),

    replace: (caller: EnvironmentCaller, clientIds: string[]) =>
      edit(caller, async (trx) => {
        await checkClients(trx, caller, clientIds, (i) => `body.clientIds.${i}`);
        const queries = createClientAllowlistQueries(trx, caller.scope.environmentId);
        await queries.keepOnly(clientIds);
        await queries.add([...new Set(clientIds)]);
      }),

    add: (caller: EnvironmentCaller, clientId: string) =>
      edit(caller, async (trx) => {
        await checkClients(trx, caller, [clientId], () => 'body.clientId');
        await createClientAllowlistQueries(trx, caller.scope.environmentId).add([clientId]);
      }),

    remove: (caller: EnvironmentCaller, clientId: string) =>
      edit(caller, async (trx) => {
        if (!(await createClientAllowlistQueries(trx, caller.scope.environmentId).remove(clientId))) {
          throw notFound('oidc_client_allowlist_entry', clientId);
        }
      }),
  };
}

export type ClientAllowlistService = ReturnType<typeof createClientAllowlistService>;
