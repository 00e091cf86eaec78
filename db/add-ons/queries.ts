// Queries of one environment's add-ons: every statement is bound to `environmentId`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ADD_ON_KINDS, EnvironmentAddOn, type AddOnKind } from './rows.ts';

const columns = sql.fragment`
  id, environment_id AS "environmentId", kind, category, active, config, secret_hints AS "secretHints",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface AddOnWrite {
  config: Record<string, unknown>;
  secretsEncrypted: string;
  secretHints: Record<string, string>;
}

export function createAddOnQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    list: () => db.any(sql.type(EnvironmentAddOn)`SELECT ${columns} FROM add_ons WHERE environment_id = ${environmentId} ORDER BY category, kind`),

    find: (kind: AddOnKind) =>
      db.maybeOne(sql.type(EnvironmentAddOn)`SELECT ${columns} FROM add_ons WHERE environment_id = ${environmentId} AND kind = ${kind}`),

    /** The active add-on of a category with its sealed secrets (what a siteverify call needs). */
    findActiveSealed: (category: string) =>
      db.maybeOne(sql.type(EnvironmentAddOn.extend({ secretsEncrypted: z.string().nullable() }))`
        SELECT ${columns}, secrets_encrypted AS "secretsEncrypted" FROM add_ons
        WHERE environment_id = ${environmentId} AND category = ${category} AND active`),

    findSecretsEncrypted: (kind: AddOnKind) =>
      db.maybeOneFirst(sql.type(z.object({ secrets: z.string().nullable() }))`
        SELECT secrets_encrypted AS secrets FROM add_ons WHERE environment_id = ${environmentId} AND kind = ${kind}`),

    upsert: (kind: AddOnKind, w: AddOnWrite) =>
      db.one(sql.type(EnvironmentAddOn)`
        INSERT INTO add_ons (environment_id, kind, category, config, secrets_encrypted, secret_hints)
        VALUES (${environmentId}, ${kind}, ${ADD_ON_KINDS[kind]}, ${sql.jsonb(w.config as never)}, ${w.secretsEncrypted}, ${sql.jsonb(w.secretHints)})
        ON CONFLICT (environment_id, kind) DO UPDATE SET config = EXCLUDED.config, secrets_encrypted = EXCLUDED.secrets_encrypted,
          secret_hints = EXCLUDED.secret_hints, updated_at = now()
        RETURNING ${columns}`),

    /** Makes `kind` the only active add-on of its category (or inactive); answers the kind it replaced, if any. */
    setActive: async (kind: AddOnKind, active: boolean) => {
      const deactivated = active
        ? await db.maybeOneFirst(sql.type(z.object({ kind: z.string() }))`
            UPDATE add_ons SET active = false, updated_at = now()
            WHERE environment_id = ${environmentId} AND category = ${ADD_ON_KINDS[kind]} AND active AND kind <> ${kind} RETURNING kind`)
        : null;
      const row = await db.one(sql.type(EnvironmentAddOn)`
        UPDATE add_ons SET active = ${active}, updated_at = now()
        WHERE environment_id = ${environmentId} AND kind = ${kind} RETURNING ${columns}`);
      return { row, deactivated };
    },

    remove: (kind: AddOnKind) => db.query(sql.unsafe`DELETE FROM add_ons WHERE environment_id = ${environmentId} AND kind = ${kind}`),
  };
}
