// A user going inactive, by whichever API, loses the impersonation grants acting as it in the same transaction, so
// reactivating it does not revive them (as a disabled service account's tokens are not revived).
import type { DatabaseTransactionConnection } from 'slonik';
import { revokeGrantsOfUser } from '../../db/access/impersonation/revoke.ts';
import type { EnvironmentCaller } from './caller.ts';

export async function endGrantsIfDeactivated(
  trx: DatabaseTransactionConnection,
  caller: EnvironmentCaller,
  before: { active: boolean } | null,
  user: { id: string; active: boolean },
) {
  if (!before?.active || user.active) return;
  const { organizationId, tenant, environmentId } = caller.scope;
  await revokeGrantsOfUser(trx, user.id, { actor: caller.actor, origin: caller.origin, scope: { organizationId, tenantId: tenant.id, environmentId } });
}
