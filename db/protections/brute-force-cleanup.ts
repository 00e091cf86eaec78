// The brute-force counters the oidc-cleanup process deletes (activities/oidc-cleanup.ts): rows whose counting window
// and lockout have ended (a failure after that would start the row again at 1 anyway).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Count = z.object({ count: z.number() });

// unscoped: deployment-wide clean-up of every environment's expired counters, in bounded batches.
export const deleteExpiredSignInFailures = (db: CommonQueryMethods, limit: number) =>
  db.oneFirst(sql.type(Count)`
    WITH gone AS (
      DELETE FROM sign_in_failures WHERE id IN (
        SELECT id FROM sign_in_failures WHERE expires_at < now() LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING 1)
    SELECT count(*)::int AS count FROM gone`);
