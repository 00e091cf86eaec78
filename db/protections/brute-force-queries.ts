// The brute-force policy's counters (sign_in_failures, 0047): per environment, one row per lower-cased identifier and
// one per client IP address. A failure is one statement for both keys; the check before a password is one statement.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';
import type { StatementBatch } from '../shared/statement-batch.ts';

export type FailureKind = 'identifier' | 'ip';
export interface FailureKey {
  kind: FailureKind;
  key: string;
}
export interface FailureRules {
  maxFailures: number;
  lockoutMinutes: number;
  progressiveDelay: boolean;
}

const Counted = z.object({
  kind: z.enum(['identifier', 'ip']),
  key: z.string(),
  failures: z.number(),
  /** This failure locked the key (the statement set `locked_until`). */
  lockedNow: z.boolean(),
  lockedUntil: isoTimestamp.nullable(),
});
export type Counted = z.infer<typeof Counted>;

const Held = z.object({ kind: z.enum(['identifier', 'ip']), lockedSeconds: z.number(), delaySeconds: z.number() });
export type Held = z.infer<typeof Held>;

export const Lockout = z.object({
  id: uuid,
  kind: z.enum(['identifier', 'ip']),
  key: z.string(),
  userId: uuid.nullable(),
  failures: z.number(),
  lastFailureAt: isoTimestamp,
  lockedUntil: isoTimestamp,
});
export type Lockout = z.infer<typeof Lockout>;

/**
 * Evaluated in a counting statement's RETURNING (so only when it changed a row), this makes its commit asynchronous:
 * the answer does not wait for the WAL to reach the disk (that wait is most of the statement's time and all of its
 * tail). A Postgres crash may forget the last fraction of a second of counts (wal_writer_delay, 200 ms by default);
 * it never leaves a row half-written. Counters only: an operator's unlock commits as usual.
 */
const asyncCommit = sql.fragment`set_config('synchronous_commit', 'off', true)`;

const Cleared = z.object({});

/** What a sign-in asks of the counters, as statements of the protections' batch (api/protections/pipeline.ts). */
export function bruteForceChecks(batch: StatementBatch, environmentId: string) {
  return {
    /** The keys among `keys` that are locked or delayed now, with the seconds left of each. */
    held: (keys: FailureKey[]) =>
      batch.rows(
        sql.fragment`
          SELECT kind,
            ceil(greatest(0, extract(epoch FROM locked_until - now())))::int AS "lockedSeconds",
            ceil(greatest(0, extract(epoch FROM delay_until - now())))::int AS "delaySeconds"
          FROM sign_in_failures
          WHERE environment_id = ${environmentId}
            AND (kind, key) IN (${sql.join(
              keys.map((k) => sql.fragment`(${k.kind}, ${k.key})`),
              sql.fragment`, `,
            )})
            AND (locked_until > now() OR delay_until > now())`,
        Held,
      ),

    /** A good password: the identifier's count starts again. */
    clear: (key: FailureKey) =>
      batch.rows(
        sql.fragment`
          DELETE FROM sign_in_failures WHERE environment_id = ${environmentId} AND kind = ${key.kind} AND key = ${key.key}
          RETURNING ${asyncCommit} AS "asyncCommit"`,
        Cleared,
      ),
  };
}

const lockoutColumns = sql.fragment`id, kind, key, user_id AS "userId", failures, last_failure_at AS "lastFailureAt", locked_until AS "lockedUntil"`;

/** The brute-force counters of one environment: every statement is bound to `environmentId`. */
export function createBruteForceQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /**
     * Counts one failure for each key. A row whose window and lockout have ended starts again at 1; the failure that
     * reaches `maxFailures` locks the key for `lockoutMinutes` (a failure during a lockout does not extend it); below
     * it, with `progressiveDelay`, the next attempt waits 1 s, 2 s, 4 s … at most 30 s.
     */
    fail: (keys: FailureKey[], rules: FailureRules) => {
      const lockout = sql.fragment`make_interval(mins => ${rules.lockoutMinutes})`;
      const stale = sql.fragment`(f.expires_at <= now())`;
      const count = sql.fragment`(CASE WHEN ${stale} THEN 1 ELSE f.failures + 1 END)`;
      const locked = sql.fragment`(NOT ${stale} AND f.locked_until > now())`;
      const delay = (n: typeof count) =>
        rules.progressiveDelay ? sql.fragment`now() + make_interval(secs => least(30, power(2, ${n} - 1)))` : sql.fragment`NULL::timestamptz`;
      const values = keys.map(
        (k) => sql.fragment`(${environmentId}, ${k.kind}, ${k.key}, 1, now() + ${lockout},
          CASE WHEN 1 >= ${rules.maxFailures} THEN now() + ${lockout} END,
          CASE WHEN 1 < ${rules.maxFailures} THEN ${delay(sql.fragment`1`)} END)`,
      );
      return db.any(sql.type(Counted)`
        INSERT INTO sign_in_failures AS f (environment_id, kind, key, failures, expires_at, locked_until, delay_until)
        VALUES ${sql.join(values, sql.fragment`, `)}
        ON CONFLICT (environment_id, kind, key) DO UPDATE SET
          failures = ${count},
          last_failure_at = now(),
          window_started_at = CASE WHEN ${stale} THEN now() ELSE f.window_started_at END,
          locked_until = CASE WHEN ${locked} THEN f.locked_until WHEN ${count} >= ${rules.maxFailures} THEN now() + ${lockout} END,
          delay_until = CASE WHEN ${locked} OR ${count} >= ${rules.maxFailures} THEN NULL ELSE ${delay(count)} END,
          user_id = CASE WHEN ${stale} THEN NULL ELSE f.user_id END,
          expires_at = CASE WHEN ${stale} THEN now() + ${lockout}
            WHEN NOT ${locked} AND ${count} >= ${rules.maxFailures} THEN greatest(f.expires_at, now() + ${lockout})
            ELSE f.expires_at END
        RETURNING kind, key, failures, locked_until AS "lockedUntil",
          coalesce(locked_until = now() + ${lockout}, false) AS "lockedNow", ${asyncCommit}`);
    },

    /** Notes the user a locked identifier names (the lockout's threat and the operator's list show it). */
    setUser: (key: FailureKey, userId: string) =>
      db.query(sql.unsafe`
        UPDATE sign_in_failures SET user_id = ${userId} WHERE environment_id = ${environmentId} AND kind = ${key.kind} AND key = ${key.key}`),

    /** The current lockouts, the latest first; of one user or one kind if asked. */
    lockouts: (filter: { userId?: string | undefined; kind?: FailureKind | undefined }) =>
      db.any(sql.type(Lockout)`
        SELECT ${lockoutColumns} FROM sign_in_failures
        WHERE environment_id = ${environmentId} AND locked_until > now()
          ${filter.userId ? sql.fragment`AND user_id = ${filter.userId}` : sql.fragment``}
          ${filter.kind ? sql.fragment`AND kind = ${filter.kind}` : sql.fragment``}
        ORDER BY locked_until DESC, id LIMIT 1000`),

    /** Ends a current lockout (the row goes: the key's count starts again); null when there is none by that id. */
    unlock: (id: string) =>
      db.maybeOne(sql.type(Lockout)`
        DELETE FROM sign_in_failures WHERE environment_id = ${environmentId} AND id = ${id} AND locked_until > now()
        RETURNING ${lockoutColumns}`),
  };
}
