// The work of an environment's directory-sync process (0016_directory_sync_and_hris.sql): users waiting to be
// deprovisioned (recorded by the trigger on `users`) and future-dated lifecycle changes. Each is claimed with
// its row locked, so a retry or a second process never acts twice.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../../shared/rows.ts';

export const DeprovisionReason = z.enum(['deactivated', 'deleted', 'terminated']);
export type DeprovisionReason = z.infer<typeof DeprovisionReason>;

const Deprovisioning = z.object({
  id: uuid,
  environmentId: uuid,
  userId: uuid,
  reason: DeprovisionReason,
  /** For a deleted user: what the cascade removed with it, by kind (`groups`, `personalAccessTokens`). */
  removed: z.record(z.string(), z.array(z.string())),
});
export type Deprovisioning = z.infer<typeof Deprovisioning>;

const LifecycleChange = z.object({ id: uuid, environmentId: uuid, userId: uuid, action: z.enum(['activate', 'deactivate']) });
export type LifecycleChange = z.infer<typeof LifecycleChange>;

const Scope = z.object({ tenantId: uuid, organizationId: uuid.nullable() });

export function createDirectorySyncQueries(db: CommonQueryMethods) {
  return {
    /** The oldest deprovisioning of the environment still to do, locked (others skip it). */
    claimDeprovisioning: (environmentId: string) =>
      db.maybeOne(sql.type(Deprovisioning)`
        SELECT id, environment_id AS "environmentId", user_id AS "userId", reason, removed FROM directory_deprovisionings
        WHERE environment_id = ${environmentId} AND done_at IS NULL
        ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`),

    finishDeprovisioning: (environmentId: string, id: string) =>
      db.query(sql.unsafe`UPDATE directory_deprovisionings SET done_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** The oldest due lifecycle change of the environment not applied yet (unlocked: lockDueLifecycleChange takes it). */
    findDueLifecycleChange: (environmentId: string) =>
      db.maybeOne(sql.type(LifecycleChange)`
        SELECT id, environment_id AS "environmentId", user_id AS "userId", action FROM directory_lifecycle_changes
        WHERE environment_id = ${environmentId} AND applied_at IS NULL AND due_at <= now()
        ORDER BY due_at, id LIMIT 1`),

    /** The change, locked, if it is still due and not applied (an HR write may have moved or dropped it meanwhile). */
    lockDueLifecycleChange: (id: string) =>
      db.maybeOne(sql.type(LifecycleChange)`
        SELECT id, environment_id AS "environmentId", user_id AS "userId", action FROM directory_lifecycle_changes
        WHERE id = ${id} AND applied_at IS NULL AND due_at <= now() FOR UPDATE`),

    markApplied: (environmentId: string, id: string) =>
      db.query(sql.unsafe`UPDATE directory_lifecycle_changes SET applied_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** When the environment's next pending lifecycle change is due (ms since the epoch), or null. */
    nextDueAt: (environmentId: string) =>
      db.oneFirst(sql.type(z.object({ at: z.number().nullable() }))`
        SELECT (extract(epoch FROM min(due_at)) * 1000)::float8 AS at FROM directory_lifecycle_changes
        WHERE environment_id = ${environmentId} AND applied_at IS NULL`),

    /** Schedules (or moves) the user's pending change of `action` to `dueAt`. */
    schedule: (environmentId: string, userId: string, action: LifecycleChange['action'], dueAt: string) =>
      db.query(sql.unsafe`
        INSERT INTO directory_lifecycle_changes (environment_id, user_id, action, due_at) VALUES (${environmentId}, ${userId}, ${action}, ${dueAt})
        ON CONFLICT (user_id, action) WHERE applied_at IS NULL DO UPDATE SET due_at = EXCLUDED.due_at`),

    /** Drops the user's pending change of `action` (the HR record no longer calls for it). */
    unschedule: (environmentId: string, userId: string, action: LifecycleChange['action']) =>
      db.query(sql.unsafe`
        DELETE FROM directory_lifecycle_changes WHERE environment_id = ${environmentId} AND user_id = ${userId} AND action = ${action} AND applied_at IS NULL`),

    /** The tenant of the environment and the organization it was created in (the first one), for system changes. */
    scopeOf: (environmentId: string) =>
      db.maybeOne(sql.type(Scope)`
        SELECT e.tenant_id AS "tenantId",
          (SELECT organization_id FROM organization_tenants WHERE tenant_id = e.tenant_id ORDER BY created_at, organization_id LIMIT 1) AS "organizationId"
        FROM environments e WHERE e.id = ${environmentId}`),
  };
}
