// The shared rate-limit windows (rate_limit_windows, 0059): each instance adds the requests it counted since its last
// sync, for many keys in one statement, and learns each key's count across every instance. Windows start at a key's
// first request and end on Postgres's clock, so instances agree whatever their own clocks say.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export interface WindowDelta {
  key: string;
  /** Requests counted on this instance since its last sync. */
  count: number;
  /** The window's length, for a window this delta starts. */
  windowMs: number;
}

const Counted = z.object({ key: z.string(), count: z.number(), remainingMs: z.number() });
export type CountedWindow = z.infer<typeof Counted>;

// unscoped: rate-limit keys are the service's own (principals, credentials, addresses), not a tenant's data.
/**
 * Adds the deltas (one per key) and answers each key's count in its window and the milliseconds left of it; a
 * window that ended starts again with the delta. Keys go in sorted, so concurrent syncs lock rows in one order.
 */
export const addToWindows = (db: CommonQueryMethods, deltas: readonly WindowDelta[]) => {
  const sorted = [...deltas].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return db.any(sql.type(Counted)`
    INSERT INTO rate_limit_windows AS w (key, window_ends_at, count)
    SELECT d.key, now() + d.window_ms * interval '1 millisecond', d.count
    FROM unnest(${sql.array(
      sorted.map((d) => d.key),
      'text',
    )}, ${sql.array(
      sorted.map((d) => d.count),
      'int8',
    )}, ${sql.array(
      sorted.map((d) => d.windowMs),
      'int8',
    )}) AS d(key, count, window_ms)
    ON CONFLICT (key) DO UPDATE
      SET count = CASE WHEN w.window_ends_at > now() THEN w.count + EXCLUDED.count ELSE EXCLUDED.count END,
        window_ends_at = CASE WHEN w.window_ends_at > now() THEN w.window_ends_at ELSE EXCLUDED.window_ends_at END
    RETURNING key, count::float8 AS count, greatest(0, extract(epoch FROM window_ends_at - now()) * 1000)::float8 AS "remainingMs"`);
};

// unscoped: the sync's clean-up of every key's ended windows, in short statements.
export const deleteEndedWindows = (db: CommonQueryMethods, limit: number) =>
  db.oneFirst(sql.type(z.object({ count: z.number() }))`
    WITH ended AS (
      SELECT key FROM rate_limit_windows WHERE window_ends_at <= now() LIMIT ${limit}
    ), gone AS (
      DELETE FROM rate_limit_windows w USING ended WHERE w.key = ended.key AND w.window_ends_at <= now() RETURNING 1
    )
    SELECT count(*)::int AS count FROM gone`);
