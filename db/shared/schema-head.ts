// The newest migration the database has applied (db/migrate.ts records them), for the readiness probe.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Head = z.object({ head: z.number() });

export async function appliedMigrationHead(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(Head)`SELECT coalesce(max(version), 0)::int AS head FROM schema_migrations`);
}
