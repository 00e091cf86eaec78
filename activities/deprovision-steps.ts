// What deprovisioning a user removes, one step per kind of access: THE extension point. A family that gives users
// access of another kind (elevated access grants, impersonation grants…) adds its step to DEPROVISION_STEPS; each
// runs in the deprovisioning's transaction, records its own changes, and returns the ids it removed, which the
// `directory.user.deprovisioned` event lists under the step's name.
import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { createPersonalAccessTokenQueries } from '../db/identity/personal-access-tokens/queries.ts';
import type { Deprovisioning } from '../db/directory/sync/queries.ts';
import { recordChange, type Change } from '../db/shared/changes.ts';
// A cycle of imports, harmless: each side uses the other's bindings only when a deprovisioning runs.
import { elevateGrants, impersonationGrants } from './deprovision-grants.ts';

export const DIRECTORY_SYNC_ACTOR = { type: 'system', id: 'directory-sync' } as const;

export interface DeprovisionTarget extends Deprovisioning {
  /** Where the changes are recorded (the environment's tenant and organization). */
  scope: Change['scope'];
}

export interface DeprovisionStep {
  /** The key of the ids it removed in the event's `removed`. */
  name: string;
  run(trx: DatabaseTransactionConnection, target: DeprovisionTarget): Promise<string[]>;
}

const Id = z.object({ id: z.uuid() });

/** Group memberships (so group-derived roles vanish); a deleted user's went with it, as the trigger recorded. */
const groupMemberships: DeprovisionStep = {
  name: 'groups',
  run: async (trx, target) => {
    const groups =
      target.reason === 'deleted'
        ? (target.removed.groups ?? [])
        : await trx.anyFirst(sql.type(Id)`DELETE FROM group_members WHERE user_id = ${target.userId} RETURNING group_id AS id`);
    for (const groupId of groups) {
      await recordChange(trx, {
        actor: DIRECTORY_SYNC_ACTOR,
        action: 'directory.group.member_remove',
        resource: { type: 'group', id: groupId },
        scope: target.scope,
        before: { userId: target.userId },
        event: { type: 'directory.group.member_removed', data: { groupId, userId: target.userId } },
      });
    }
    return [...groups];
  },
};

/** The user's personal access tokens, revoked (a deleted user's were deleted with it). */
const personalAccessTokens: DeprovisionStep = {
  name: 'personalAccessTokens',
  run: async (trx, target) => {
    if (target.reason === 'deleted') return target.removed.personalAccessTokens ?? [];
    const ids = await trx.anyFirst(sql.type(Id)`
      SELECT id FROM personal_access_tokens WHERE user_id = ${target.userId} AND revoked_at IS NULL ORDER BY id FOR UPDATE`);
    for (const id of ids) {
      const token = await createPersonalAccessTokenQueries(trx).revokePersonalAccessToken(target.environmentId, id);
      await recordChange(trx, {
        actor: DIRECTORY_SYNC_ACTOR,
        action: 'personal_access_token.revoke',
        resource: { type: 'personal_access_token', id },
        scope: target.scope,
        before: { revokedAt: null },
        after: { revokedAt: token.revokedAt },
        event: { type: 'personal_access_token.revoked', data: { token } },
      });
    }
    return [...ids];
  },
};

export const DEPROVISION_STEPS: readonly DeprovisionStep[] = [groupMemberships, personalAccessTokens, elevateGrants, impersonationGrants];
