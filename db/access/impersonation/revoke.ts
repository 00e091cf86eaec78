// Revoking an impersonation grant: the grant marked revoked, its audit entry and event, and the signal that stops its
// impersonation-expiry process. The grants acting as a user are revoked in the transaction that deactivates the user
// (directory API, SCIM, HRIS), so that reactivating it never revives them; deprovisioning calls it too.
import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { createProcessOutboxQueries } from '../../processes/outbox.ts';
import { recordChange, type Actor, type Change } from '../../shared/changes.ts';
import { createImpersonationQueries } from './queries.ts';
import type { ImpersonationGrant } from './rows.ts';

const Row = z.object({ id: z.uuid(), environmentId: z.uuid() });

export const DEACTIVATED_REASON = 'The user was deactivated.';

/** How a revoke is recorded: the change without its actor, origin and scope, which the recorder adds. */
type RecordRevoke = (change: Pick<Change<'impersonation.grant.revoked'>, 'action' | 'resource' | 'before' | 'after' | 'event'>) => Promise<unknown>;

/** Revokes a grant not yet revoked (`before`, locked by the caller) on behalf of `by`; the grant as it is now. */
export async function revokeGrant(trx: DatabaseTransactionConnection, before: ImpersonationGrant, by: Actor, reason: string | null, record: RecordRevoke) {
  const grant = await createImpersonationQueries(trx, before.environmentId).revoke(before.id, by, reason);
  await record({
    action: 'impersonation.grant.revoke',
    resource: { type: 'impersonation_grant', id: grant.id },
    before,
    after: grant,
    event: { type: 'impersonation.grant.revoked', data: { grant } },
  });
  await createProcessOutboxQueries(trx).enqueueSignal({ kind: 'impersonation-expiry', entityId: grant.id, topic: 'impersonation', payload: { revoked: true } });
  return grant;
}

// unscoped: the user's id (one environment's, already checked by every caller) selects the grants acting as it.
const grantsInForce = (trx: DatabaseTransactionConnection, userId: string) =>
  trx.any(sql.type(Row)`
    SELECT id, environment_id AS "environmentId" FROM impersonation_grants
    WHERE user_id = ${userId} AND revoked_at IS NULL AND expired_at IS NULL AND expires_at > now() ORDER BY id FOR UPDATE`);

/** Revokes the user's grants in force on behalf of `by` (who deactivated it); the ids of those revoked. */
export async function revokeGrantsOfUser(
  trx: DatabaseTransactionConnection,
  userId: string,
  by: Pick<Change, 'actor' | 'origin' | 'scope'>,
  reason = DEACTIVATED_REASON,
): Promise<string[]> {
  const rows = await grantsInForce(trx, userId);
  for (const { id, environmentId } of rows) {
    const before = await createImpersonationQueries(trx, environmentId).byId(id);
    await revokeGrant(trx, before, by.actor, reason, (change) => recordChange(trx, { ...by, ...change }));
  }
  return rows.map((r) => r.id);
}
