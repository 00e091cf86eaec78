// Vanity domains: an environment's own auth host. Registering answers the DNS records to create and starts the
// domain's process (through the outbox, in the same transaction), which waits for the records, obtains a certificate
// over ACME and renews it. A re-check or a removal writes the row, then wakes the process to act on it.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { createVanityDomainQueries } from '../../../../db/vanity-domains/queries.ts';
import { toVanityDomain, type VanityDomainRow } from '../../../../db/vanity-domains/rows.ts';
import type { VanityTimings } from '../../../../lib/processes/contracts.ts';
import { orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

export interface VanityDomainServiceDeps {
  pool: DatabasePool;
  cnameTarget: string;
  timings: VanityTimings;
}

export const TXT_LABEL = '_iam-vanity';
const newToken = () => `iam-vanity-domain=${randomBytes(24).toString('base64url')}`;

type Db = Parameters<typeof createVanityDomainQueries>[0];

export function createVanityDomainService(deps: VanityDomainServiceDeps) {
  const { pool } = deps;
  const queries = (db: Db, caller: EnvironmentCaller) => createVanityDomainQueries(db, caller.scope.environmentId);
  const lock = (db: Db, caller: EnvironmentCaller, id: string) => orNotFound(queries(db, caller).lock(id), 'vanity_domain', id);
  const wake = (db: Db, id: string) =>
    createProcessOutboxQueries(db).enqueueSignal({ kind: 'vanity-domain', entityId: id, topic: 'vanity-domain', payload: { wake: true } });
  const resource = (id: string) => ({ type: 'vanity_domain', id });
  const summary = (row: VanityDomainRow) => ({ hostname: row.hostname, status: row.status });

  return {
    list: (caller: EnvironmentCaller, query: PageQuery) => listPage('domains', query, (page) => queries(pool, caller).list(page)),

    get: async (caller: EnvironmentCaller, id: string) => ({ domain: await orNotFound(queries(pool, caller).find(id), 'vanity_domain', id) }),

    create: (caller: EnvironmentCaller, input: { hostname: string }) =>
      // A host already registered (by any environment) is a unique violation: 409 vanity_domain.already_exists.
      pool.transaction(async (trx) => {
        const domain = await queries(trx, caller).insert({
          hostname: input.hostname,
          cnameTarget: deps.cnameTarget,
          txtName: `${TXT_LABEL}.${input.hostname}`,
          txtValue: newToken(),
        });
        await record(trx, caller, {
          action: 'vanity_domain.create',
          resource: resource(domain.id),
          after: { hostname: domain.hostname, status: domain.status },
          event: { type: 'vanity_domain.created', data: { domain } },
        });
        await createProcessOutboxQueries(trx).enqueueStart({
          kind: 'vanity-domain',
          entityId: domain.id,
          tenantId: caller.scope.tenant.id,
          input: { domainId: domain.id, ...deps.timings },
        });
        return { domain };
      }),

    recheck: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await lock(trx, caller, id);
        const domain = await queries(trx, caller).recheck(id);
        await record(trx, caller, {
          action: 'vanity_domain.recheck',
          resource: resource(id),
          before: summary(before),
          after: { hostname: domain.hostname, status: domain.status },
          event: { type: 'vanity_domain.rechecked', data: { domain } },
        });
        await wake(trx, id);
        return { domain };
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const row = await lock(trx, caller, id);
        await queries(trx, caller).markRemoving(id);
        const domain = toVanityDomain(row);
        await record(trx, caller, {
          action: 'vanity_domain.delete',
          resource: resource(id),
          before: summary(row),
          event: { type: 'vanity_domain.deleted', data: { domain } },
        });
        await wake(trx, id);
        return { domain };
      }),
  };
}

export type VanityDomainService = ReturnType<typeof createVanityDomainService>;
