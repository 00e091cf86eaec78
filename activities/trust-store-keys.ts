// retireTrustStoreKey: marks a retiring trust-store key retired once its grace period is over, with its event,
// exactly once (the row is locked and re-read: a retry, a replay or a second process finds it settled).
import type { DatabasePool } from 'slonik';
import { sql } from 'slonik';
import { z } from 'zod';
import { recordChange } from '../db/shared/changes.ts';
import { createTrustStoreKeyProcessQueries } from '../db/mcp/trust-store/keys.ts';
import type { Activities } from '../workflows/activities.ts';

export interface TrustStoreKeyDeps {
  pool: DatabasePool;
}

const Scope = z.object({ tenantId: z.uuid(), environmentId: z.uuid() });

export function createTrustStoreKeyActivities(deps: TrustStoreKeyDeps): Pick<Activities, 'retireTrustStoreKey'> {
  return {
    retireTrustStoreKey: ({ keyId }) =>
      deps.pool.transaction(async (trx) => {
        const keys = createTrustStoreKeyProcessQueries(trx);
        const result = await keys.retireIfDue(keyId);
        if (result.outcome === 'pending') return { outcome: 'pending', retiresAt: result.retiresAt! };
        if (result.outcome === 'settled') return { outcome: 'settled' };
        const key = await keys.byId(keyId);
        const scope = await trx.one(sql.type(Scope)`
          SELECT v.tenant_id AS "tenantId", v.id AS "environmentId" FROM trust_store_keys k JOIN environments v ON v.id = k.environment_id WHERE k.id = ${keyId}`);
        await recordChange(trx, {
          actor: { type: 'system', id: 'trust-store-key-retirement' },
          action: 'mcp.trust_store.key.retire',
          resource: { type: 'trust_store_key', id: keyId },
          scope,
          before: { status: 'retiring' },
          after: { status: 'retired' },
          event: { type: 'mcp.trust_store.key.retired', data: { entryId: key.entryId, key } },
        });
        return { outcome: 'retired' };
      }),
  };
}
