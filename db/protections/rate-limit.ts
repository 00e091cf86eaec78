// The rate-limit policy's counters (sign_in_rate_counters, 0048): attempts per environment, flow and key in fixed
// windows that start at a key's first attempt, on Postgres's clock so every instance agrees.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { StatementBatch } from '../shared/statement-batch.ts';

const Hit = z.object({ hits: z.number(), retryAfterSeconds: z.number() });

/** The counters a sign-in counts into, as a statement of the protections' batch (api/protections/pipeline.ts). */
export function rateLimitCounters(batch: StatementBatch, environmentId: string) {
  return {
    /**
     * Counts one attempt of `key` in its window (after the window's end, a new one starts with this attempt) and
     * answers the window's count with the seconds until it ends: one statement, atomic under concurrent attempts.
     */
    hit: async (flow: string, key: string, windowSeconds: number) => {
      const [hit] = await batch.rows(
        sql.fragment`
          INSERT INTO sign_in_rate_counters AS c (environment_id, flow, key, window_ends_at, hits)
          VALUES (${environmentId}, ${flow}, ${key}, now() + make_interval(secs => ${windowSeconds}::int), 1)
          ON CONFLICT (environment_id, flow, key) DO UPDATE
            SET hits = CASE WHEN c.window_ends_at > now() THEN c.hits + 1 ELSE 1 END,
              window_ends_at = CASE WHEN c.window_ends_at > now() THEN c.window_ends_at ELSE EXCLUDED.window_ends_at END
          RETURNING hits, greatest(1, ceil(extract(epoch FROM window_ends_at - now())))::int AS "retryAfterSeconds"`,
        Hit,
      );
      return hit!;
    },
  };
}

// unscoped: the OIDC clean-up's system work over every environment's ended windows.
export const deleteEndedRateCounters = (db: CommonQueryMethods, limit: number) =>
  db.oneFirst(sql.type(z.object({ count: z.number() }))`
    WITH ended AS (
      SELECT environment_id, flow, key FROM sign_in_rate_counters WHERE window_ends_at <= now() LIMIT ${limit}
    ), gone AS (
      DELETE FROM sign_in_rate_counters c USING ended
      WHERE c.environment_id = ended.environment_id AND c.flow = ended.flow AND c.key = ended.key AND c.window_ends_at <= now()
      RETURNING 1
    )
    SELECT count(*)::int AS count FROM gone`);
