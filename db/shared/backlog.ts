// What the metrics read from the database at scrape time: the process outbox per process kind (entries waiting to be
// carried out, the age of the oldest, the dead ones), and how far the event dispatcher is behind. Both use process_outbox's partial indexes on live entries.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const OutboxKind = z.object({ kind: z.string(), entries: z.number(), oldestAgeSeconds: z.number(), dead: z.number() });
export type OutboxBacklog = z.infer<typeof OutboxKind>;

export function createBacklogQueries(db: CommonQueryMethods) {
  return {
    /** Per process kind (a signal's kind is its process's): live entries, the oldest one's age, dead entries. */
    // unscoped: an operator's view of the whole deployment; counts only, no tenant data.
    outbox: async (): Promise<readonly OutboxBacklog[]> =>
      db.any(sql.type(OutboxKind)`
        SELECT coalesce(kind, split_part(process_id, ':', 1)) AS kind,
          (count(*) FILTER (WHERE dead_at IS NULL))::int AS entries,
          coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE dead_at IS NULL)), 0)::float8 AS "oldestAgeSeconds",
          (count(*) FILTER (WHERE dead_at IS NOT NULL))::int AS dead
        FROM process_outbox GROUP BY 1`),
    /**
     * Age of the oldest committed event the dispatcher has not yet turned into deliveries (0 when it is caught up):
     * the first event past its cursor in stream order, one step of events__tx_id_sequence.
     */
    // unscoped: the dispatcher's position over every tenant's events; an age, no tenant data.
    dispatchLag: async (): Promise<number> =>
      db.oneFirst(sql.type(z.object({ age: z.number() }))`
        SELECT coalesce((SELECT extract(epoch FROM now() - e.occurred_at)::float8 FROM events e, dispatch_cursor c
          WHERE (e.tx_id, e.sequence) > (c.last_tx_id, c.last_sequence) ORDER BY e.tx_id, e.sequence LIMIT 1), 0)::float8 AS age`),
  };
}
