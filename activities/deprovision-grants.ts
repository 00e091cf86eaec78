// Deprovisioning steps of the grant families: a deprovisioned user's open elevate grants (approved or active) and
// the impersonation grants in force that act as the user are revoked, each with its event and a signal that ends its
// process. A deleted user's grants went with it (foreign keys cascade), so there is nothing left to revoke.
import { sql } from 'slonik';
import { z } from 'zod';
import { recordGrant, systemActor } from '../db/access/elevate/changes.ts';
import { createGrantQueries } from '../db/access/elevate/grants.ts';
import { revokeGrantsOfUser } from '../db/access/impersonation/revoke.ts';
import { createProcessOutboxQueries } from '../db/processes/outbox.ts';
import { DIRECTORY_SYNC_ACTOR, type DeprovisionStep } from './deprovision-steps.ts';

const Id = z.object({ id: z.uuid() });
const REASON = 'The user was deprovisioned.';

export const elevateGrants: DeprovisionStep = {
  name: 'elevateGrants',
  run: async (trx, target) => {
    if (target.reason === 'deleted') return [];
    const ids = await trx.anyFirst(sql.type(Id)`
      SELECT id FROM elevate_grants WHERE user_id = ${target.userId} AND state IN ('approved', 'active') ORDER BY id FOR UPDATE`);
    const grants = createGrantQueries(trx, target.environmentId);
    for (const id of ids) {
      const before = (await grants.findGrant(id))!;
      await grants.revoke(id, REASON);
      const grant = (await grants.findGrant(id))!;
      await recordGrant(trx, systemActor(DIRECTORY_SYNC_ACTOR.id), target.environmentId, 'revoked', grant, before);
      await createProcessOutboxQueries(trx).enqueueSignal({ kind: 'elevate-grant', entityId: id, topic: 'elevate-grant', payload: { revoked: true } });
    }
    return [...ids];
  },
};

// Deactivating a user revokes these in its own transaction (db/access/impersonation/revoke.ts); this catches
// a deactivation made another way (a future-dated HR termination applied by the process, SQL).
export const impersonationGrants: DeprovisionStep = {
  name: 'impersonationGrants',
  run: async (trx, target) =>
    target.reason === 'deleted' ? [] : revokeGrantsOfUser(trx, target.userId, { actor: DIRECTORY_SYNC_ACTOR, scope: target.scope }, REASON),
};
