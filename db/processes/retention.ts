// The deployment's one retention process (workflows/retention.ts) and the partition work it does: monthly partitions of
// the partitioned logs and deliveries (migrations 0057, 0060) created ahead, expired ones detached and dropped whole,
// never a long DELETE.
// Started through the process outbox like the OIDC clean-up (db/oidc/cleanup/singleton.ts): at boot, by each run as
// it ends (due after the interval), and by the sweeper when neither left a start waiting and it is not running.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { RetentionInput } from '../../lib/processes/contracts.ts';

export const RETENTION_KIND = 'retention';

/**
 * The partitioned tables, by the key of their retention setting (RetentionInput.retentionMs). A kind's tables share its
 * months and are dropped together: a delivery's attempts are filed in its month (migration 0060).
 */
export const PARTITIONED_TABLES = {
  events: ['events'],
  auditLogs: ['audit_logs'],
  decisions: ['authzen_decisions'],
  deliveries: ['delivery_attempts', 'deliveries'],
} as const satisfies Record<string, readonly string[]>;
export type PartitionedKind = keyof typeof PARTITIONED_TABLES;

const Id = z.object({ id: z.string() });
const Cutoff = z.object({ cutoff: z.string() });
const processIdOf = sql.fragment`${RETENTION_KIND} || ':' || current_database()`;
const nothingWaiting = sql.fragment`NOT EXISTS (SELECT 1 FROM process_outbox o WHERE o.process_id = ${processIdOf} AND o.dead_at IS NULL)`;

/**
 * The time before which whole months of `kind` go. A delivery still pending (retrying, or waiting for its first
 * attempt) holds its month and every later one back until it settles, however long its retries or a receiver's
 * Retry-After make it wait; read from the two partial indexes covering pending deliveries (pending_due, unstarted).
 * Read before the months are dropped, not under their lock: a delivery written meanwhile into a month already past the
 * retention (the dispatcher reaching events older than DELIVERIES_RETENTION) is not protected.
 */
const cutoffOf = (kind: PartitionedKind, retentionMs: number) => {
  const expired = sql.fragment`now() - ${retentionMs} * interval '1 millisecond'`;
  if (kind !== 'deliveries') return expired;
  return sql.fragment`least(${expired},
    (SELECT min(filed_at) FROM deliveries WHERE status = 'pending' AND process_started),
    (SELECT min(filed_at) FROM deliveries WHERE status = 'pending' AND NOT process_started))`;
};

// unscoped: retention belongs to the deployment: it manages whole partitions holding every tenant's rows.
export function createRetentionQueries(db: CommonQueryMethods) {
  return {
    /** Creates the missing monthly partitions of `kind` from this month through `monthsAhead` months ahead; returns how many. */
    ensurePartitions: async (kind: PartitionedKind, monthsAhead: number) => {
      let created = 0;
      for (const table of PARTITIONED_TABLES[kind]) {
        created += await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT partition_ensure_months(${table}, now(), ${monthsAhead}) AS n`);
      }
      return created;
    },

    /**
     * Detaches and drops the monthly partitions of `kind` whose whole month is older than `retentionMs` (deliveries: and
     * older than every pending delivery); returns their names.
     */
    dropExpired: async (kind: PartitionedKind, retentionMs: number) => {
      const cutoff = await db.oneFirst(sql.type(Cutoff)`SELECT (${cutoffOf(kind, retentionMs)})::text AS cutoff`);
      const dropped: string[] = [];
      for (const table of PARTITIONED_TABLES[kind]) {
        dropped.push(...(await db.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT partition_drop_before(${table}, ${cutoff}::timestamptz) AS name`)));
      }
      return dropped;
    },

    /** The monthly partitions of `table`, oldest first (the DEFAULT partition is not listed). */
    partitions: async (table: string) => [
      ...(await db.anyFirst(sql.type(z.object({ name: z.string() }))`
        SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = ${table}::regclass AND c.relname ~ '_p[0-9]{6}$' ORDER BY 1`)),
    ],

    /** Starts the process after commit, `delayMs` from now, unless a start of it already waits (idempotent). */
    enqueueStart: (input: RetentionInput, delayMs = 0) =>
      db.query(sql.unsafe`
        INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload, next_attempt_at)
        SELECT 'start', ${RETENTION_KIND}, ${processIdOf}, NULL, ${sql.jsonb(input as never)}, now() + ${delayMs} * interval '1 millisecond'
        WHERE ${nothingWaiting}`),

    /** The sweeper's row: the process's entity id, when no start of it waits in the outbox. */
    sweepRow: async () => [...(await db.any(sql.type(Id)`SELECT current_database()::text AS id WHERE ${nothingWaiting}`))],
  };
}
