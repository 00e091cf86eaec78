// Public keys of trust-store entries: added, rotated (the previous active keys retire at the end of a grace period,
// by a trust-store-key-retirement process started in the same transaction) and revoked at once.
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createTrustStoreKeyQueries } from '../../../../db/mcp/trust-store/keys.ts';
import type { TrustStoreKey } from '../../../../db/mcp/trust-store/rows.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { toPublicJwk } from '../../../../lib/public-jwk.ts';
import { invalidField, orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { changeableEntry, findEntry } from './entries-service.ts';

type Verb = 'add' | 'revoke';
const EVENT_OF = { add: 'mcp.trust_store.key.added', revoke: 'mcp.trust_store.key.revoked' } as const satisfies Record<Verb, EventType>;

async function publicKey(jwk: Record<string, unknown>, alg: string | undefined) {
  const checked = await toPublicJwk(jwk, alg);
  if ('problem' in checked) {
    const { member, message } = checked.problem;
    throw invalidField(member ? `body.jwk.${member}` : 'body.jwk', message, 'trust_store.invalid_key');
  }
  return checked.key;
}

export function createKeyService(deps: { pool: DatabasePool; rotationGraceMs: number }) {
  const { pool } = deps;
  const keyOf = (db: Parameters<typeof createTrustStoreKeyQueries>[0], caller: EnvironmentCaller, entryId: string, keyId: string) =>
    orNotFound(createTrustStoreKeyQueries(db, caller.scope.environmentId).find(entryId, keyId), 'trust_store_key', keyId);

  return {
    list: async (caller: EnvironmentCaller, entryId: string, query: PageQuery) => {
      await findEntry(pool, caller, entryId);
      return listPage('keys', query, (page) => createTrustStoreKeyQueries(pool, caller.scope.environmentId).findPage(entryId, page));
    },

    find: async (caller: EnvironmentCaller, entryId: string, keyId: string) => {
      await findEntry(pool, caller, entryId);
      return keyOf(pool, caller, entryId, keyId);
    },

    add: async (caller: EnvironmentCaller, entryId: string, input: { jwk: Record<string, unknown>; alg?: string }) => {
      const jwk = await publicKey(input.jwk, input.alg);
      return pool.transaction(async (trx) => {
        await changeableEntry(trx, caller, entryId);
        const key = await createTrustStoreKeyQueries(trx, caller.scope.environmentId).insert(entryId, jwk);
        await record(trx, caller, {
          action: 'mcp.trust_store.key.add',
          resource: { type: 'trust_store_key', id: key.id },
          after: key,
          event: { type: EVENT_OF.add, data: { entryId, key } },
        });
        return key;
      });
    },

    rotate: async (caller: EnvironmentCaller, entryId: string, input: { jwk: Record<string, unknown>; alg?: string; gracePeriodSeconds?: number }) => {
      const jwk = await publicKey(input.jwk, input.alg);
      const grace = Math.floor(input.gracePeriodSeconds ?? deps.rotationGraceMs / 1000);
      return pool.transaction(async (trx) => {
        await changeableEntry(trx, caller, entryId);
        const keys = createTrustStoreKeyQueries(trx, caller.scope.environmentId);
        const key = await keys.insert(entryId, jwk);
        const retiring: TrustStoreKey[] = [];
        for (const id of await keys.retireActive(entryId, key.id, grace)) retiring.push(await keys.byId(id));
        const outbox = createProcessOutboxQueries(trx);
        for (const old of retiring.filter((k) => k.retiresAt !== null)) {
          const input = { keyId: old.id, retiresAt: Date.parse(old.retiresAt!) };
          await outbox.enqueueStart({ kind: 'trust-store-key-retirement', entityId: old.id, tenantId: caller.scope.tenant.id, input });
        }
        await record(trx, caller, {
          action: 'mcp.trust_store.key.rotate',
          resource: { type: 'trust_store_key', id: key.id },
          after: { key, retiring },
          event: { type: 'mcp.trust_store.key.rotated', data: { entryId, key, retiring } },
        });
        return { key, retiring };
      });
    },

    /** At once; revoking a revoked key returns it unchanged. */
    revoke: (caller: EnvironmentCaller, entryId: string, keyId: string) =>
      pool.transaction(async (trx) => {
        await changeableEntry(trx, caller, entryId);
        const before = await keyOf(trx, caller, entryId, keyId);
        if (before.status === 'revoked') return before;
        const key = await createTrustStoreKeyQueries(trx, caller.scope.environmentId).revoke(keyId);
        await record(trx, caller, {
          action: 'mcp.trust_store.key.revoke',
          resource: { type: 'trust_store_key', id: key.id },
          before,
          after: key,
          event: { type: EVENT_OF.revoke, data: { entryId, key } },
        });
        return key;
      }),
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
