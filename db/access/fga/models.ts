// The authorization models of one environment's FGA store: immutable, newest first (ids are ULIDs).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { AuthorizationModel } from '../../../lib/fga/types.ts';

const StoredModel = z.object({ id: z.string(), model: z.record(z.string(), z.unknown()), createdAt: z.string() });
const columns = sql.fragment`id, model, created_at AS "createdAt"`;

const toModel = (row: z.infer<typeof StoredModel>): AuthorizationModel => ({ ...(row.model as Omit<AuthorizationModel, 'id'>), id: row.id });

export function createFgaModelQueries(db: CommonQueryMethods, environmentId: string) {
  const one = (row: z.infer<typeof StoredModel> | null) => (row ? toModel(row) : null);
  return {
    insert: (model: AuthorizationModel) => {
      const { id, ...rest } = model;
      return db.query(sql.unsafe`
        INSERT INTO fga_models (id, environment_id, schema_version, model) VALUES (${id}, ${environmentId}, ${model.schema_version}, ${sql.jsonb(rest as never)})`);
    },

    /** The newest model's id (what a look-up of the latest needs when the compiled model is cached by id). */
    latestId: async () =>
      (await db.maybeOneFirst(
        sql.type(z.object({ id: z.string() }))`SELECT id FROM fga_models WHERE environment_id = ${environmentId} ORDER BY id DESC LIMIT 1`,
      )) ?? null,

    find: async (id: string) =>
      one(await db.maybeOne(sql.type(StoredModel)`SELECT ${columns} FROM fga_models WHERE environment_id = ${environmentId} AND id = ${id}`)),

    /** Newest first, older than `before` (a page's last id). */
    page: async (before: string | null, limit: number) =>
      (
        await db.any(sql.type(StoredModel)`
          SELECT ${columns} FROM fga_models WHERE environment_id = ${environmentId} ${before === null ? sql.fragment`` : sql.fragment`AND id < ${before}`}
          ORDER BY id DESC LIMIT ${limit}`)
      ).map(toModel),
  };
}
