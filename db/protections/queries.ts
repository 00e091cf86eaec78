// An environment's sign-in protection policies (protection_policies, 0043): one row per policy kind, none until saved.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';
import type { ProtectionKind } from '../../lib/protections/settings.ts';

export const ProtectionPolicyRow = z.object({
  id: uuid,
  environmentId: uuid,
  kind: z.string(),
  settings: z.record(z.string(), z.unknown()),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type ProtectionPolicyRow = z.infer<typeof ProtectionPolicyRow>;

const columns = sql.fragment`id, environment_id AS "environmentId", kind, settings, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The protection policies of one environment: every statement is bound to `environmentId`. */
export function createProtectionPolicyQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: (kind: ProtectionKind, lock = false): Promise<ProtectionPolicyRow | null> =>
      db.maybeOne(sql.type(ProtectionPolicyRow)`
        SELECT ${columns} FROM protection_policies WHERE environment_id = ${environmentId} AND kind = ${kind}
        ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    save: (kind: ProtectionKind, settings: Record<string, unknown>) =>
      db.one(sql.type(ProtectionPolicyRow)`
        INSERT INTO protection_policies (environment_id, kind, settings)
        VALUES (${environmentId}, ${kind}, ${sql.jsonb(settings as never)})
        ON CONFLICT (environment_id, kind) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()
        RETURNING ${columns}`),
  };
}
