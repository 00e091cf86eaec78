import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** What the first start created: the operator (bootstrap) organization, tenant, project and environment. */
const BootstrapRecord = z.looseObject({ organizationId: z.uuid(), tenantId: z.uuid(), projectId: z.uuid(), environmentId: z.uuid() });
export type BootstrapRecord = z.infer<typeof BootstrapRecord>;

export function createServiceStateQueries(db: CommonQueryMethods) {
  return {
    /** Serialises one-off work (like the bootstrap) across instances until the transaction ends. */
    lock: (key: string) => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${key}))`),
    has: (key: string) => db.exists(sql.type(z.object({ key: z.string() }))`SELECT key FROM service_state WHERE key = ${key}`),
    /** The bootstrap record, or null before the first start finished. */
    findBootstrap: () => db.maybeOneFirst(sql.type(z.object({ value: BootstrapRecord }))`SELECT value FROM service_state WHERE key = 'bootstrap'`),
    put: (key: string, value: Record<string, unknown>) =>
      db.query(sql.unsafe`INSERT INTO service_state (key, value) VALUES (${key}, ${sql.jsonb(value as never)})`),
  };
}
