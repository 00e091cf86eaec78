// Rotating the signing keys (the key ring itself is the auth core's: api/access/signing-keys.ts): operators only,
// in the operator organization's audit log.
import type { DatabasePool } from 'slonik';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { record, type Caller } from '../../../access/caller.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';
import { ApiError } from '../../../errors.ts';

export function createSigningKeyService(pool: DatabasePool, keys: SigningKeys) {
  return {
    list: () => keys.list(),
    rotate: async (caller: Caller) => {
      const { kid } = await pool.transaction(async (trx) => {
        // Keys sign every organization's tokens: only the operators (the bootstrap organization, whole) rotate them.
        const operators = await createServiceStateQueries(trx).findBootstrap();
        const { principal } = caller;
        if (!operators || !principal.organizationIds.includes(operators.organizationId) || principal.tenantIds !== null) {
          throw new ApiError(403, 'signing_key.operator_only', 'Only principals of the operator organization may rotate signing keys.');
        }
        const created = await keys.replaceActive(trx);
        await record(trx, caller, {
          action: 'signing_key.rotate',
          resource: { type: 'signing_key', id: created.kid },
          scope: { organizationId: operators.organizationId },
          after: { kid: created.kid },
          event: { type: 'signing_key.rotated', data: { kid: created.kid } },
        });
        return created;
      });
      await keys.reload();
      return { kid };
    },
  };
}

export type SigningKeyService = ReturnType<typeof createSigningKeyService>;
