// The deployment's one oidc-cleanup process. Its entity id is the database's name (one deployment, one database;
// test databases each get their own process on a shared Temporal server). It is started through the process
// outbox like every process: at boot, by each run as it ends (due after the interval: the engine-neutral
// continue-as-new), and by the sweeper when neither left a start waiting and it is not running.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { OidcCleanupInput } from '../../../lib/processes/contracts.ts';

export const OIDC_CLEANUP_KIND = 'oidc-cleanup';

const Id = z.object({ id: z.string() });

const processIdOf = sql.fragment`${OIDC_CLEANUP_KIND} || ':' || current_database()`;

/** No start or message of the process waits in the outbox (a dead entry does not count). */
const nothingWaiting = sql.fragment`NOT EXISTS (SELECT 1 FROM process_outbox o WHERE o.process_id = ${processIdOf} AND o.dead_at IS NULL)`;

export function createOidcCleanupSingletonQueries(db: CommonQueryMethods) {
  return {
    /** The entity id of the deployment's process (`oidc-cleanup:<id>`). */
    entityId: () => db.oneFirst(sql.type(Id)`SELECT current_database()::text AS id`),

    /**
     * Starts the process after commit, `delayMs` from now, unless a start of it already waits: idempotent, so a
     * boot, a retried activity and the sweeper never pile up starts.
     */
    // unscoped: the process belongs to the deployment, not to a tenant.
    enqueueStart: (input: OidcCleanupInput, delayMs = 0) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload, next_attempt_at)
        SELECT 'start', ${OIDC_CLEANUP_KIND}, ${processIdOf}, NULL, ${sql.jsonb(input as never)}, now() + ${delayMs} * interval '1 millisecond'
        WHERE ${nothingWaiting}`),

    /** The sweeper's row: the process's entity id, when no start of it waits in the outbox. */
    // unscoped: the process belongs to the deployment, not to a tenant.
    sweepRow: async () => [...(await db.any(sql.type(Id)`SELECT current_database()::text AS id WHERE ${nothingWaiting}`))],
  };
}
