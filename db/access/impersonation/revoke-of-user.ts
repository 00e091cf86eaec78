// Ends the impersonation grants in force that act as a user, each as a revoke does: its audit entry and event, and
// the signal that stops its impersonation-expiry process. Called in the transaction that deactivates the user
// (directory API, SCIM, HRIS) so that reactivating it never revives them; deprovisioning calls it too.
import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { createProcessOutboxQueries } from '../../processes/outbox.ts';
import { recordChange, type Change } from '../../shared/changes.ts';
import { createImpersonationQueries } from './queries.ts';

const Id = z.object({ id: z.uuid() });

export const DEACTIVATED_REASON = 'The user was deactivated.';

/** Revokes the user's grants in force on behalf of `by` (who deactivated it); the ids of those revoked. */
export async function revokeGrantsOfUser(
  trx: DatabaseTransactionConnection,
  userId: string,
  by: Pick<Change, 'actor' | 'origin' | 'scope'>,
  reason = DEACTIVATED_REASON,
): Promise<string[]> {
  const ids = await trx.anyFirst(sql.type(Id)`
    SELECT id FROM impersonation_grants
    WHERE user_id = ${userId} AND revoked_at IS NULL AND expired_at IS NULL AND expires_at > now() ORDER BY id FOR UPDATE`);
  const queries = createImpersonationQueries(trx);
  for (const id of ids) {
    const before = await queries.byId(id);
    const grant = await queries.revoke(id, by.actor, reason);
    await recordChange(trx, {
      ...by,
      action: 'impersonation.grant.revoke',
      resource: { type: 'impersonation_grant', id },
      before,
      after: grant,
      event: { type: 'impersonation.grant.revoked', data: { grant } },
    });
    await createProcessOutboxQueries(trx).enqueueSignal({ kind: 'impersonation-expiry', entityId: id, topic: 'impersonation', payload: { revoked: true } });
  }
  return [...ids];
}
