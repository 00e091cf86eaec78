// The assertions of each authorization model (OpenFGA's ReadAssertions / WriteAssertions), replaced as a whole.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Stored = z.object({ assertions: z.array(z.record(z.string(), z.unknown())) });

export function createFgaAssertionQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: async (modelId: string) =>
      (await db.maybeOne(sql.type(Stored)`SELECT assertions FROM fga_assertions WHERE environment_id = ${environmentId} AND model_id = ${modelId}`))
        ?.assertions ?? [],

    replace: (modelId: string, assertions: readonly Record<string, unknown>[]) =>
      db.query(sql.unsafe`
        INSERT INTO fga_assertions (model_id, environment_id, assertions) VALUES (${modelId}, ${environmentId}, ${sql.jsonb(assertions as never)})
        ON CONFLICT (model_id) DO UPDATE SET assertions = EXCLUDED.assertions, updated_at = now()
        WHERE fga_assertions.environment_id = EXCLUDED.environment_id`),
  };
}
