import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export function createServiceStateQueries(db: CommonQueryMethods) {
  return {
    /** Serialises one-off work (like the bootstrap) across instances until the transaction ends. */
    lock: (key: string) => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${key}))`),
    has: (key: string) => db.exists(sql.type(z.object({ key: z.string() }))`SELECT key FROM service_state WHERE key = ${key}`),
    put: (key: string, value: Record<string, unknown>) =>
      db.query(sql.unsafe`INSERT INTO service_state (key, value) VALUES (${key}, ${sql.jsonb(value as never)})`),
  };
}
