// Trust-store entries inserted directly (the trust-store management API lives in another family).
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';

export interface EntrySeed {
  subject: string;
  kind?: 'agent' | 'mcp_server' | 'workload';
  status?: 'pending' | 'verified' | 'suspended' | 'revoked';
  allowedTools?: string[] | null;
  manifestHash?: string | null;
}

/** `sha256:` + 64 hex characters made of one repeated character, for tests. */
export const hashOf = (c: string) => `sha256:${c.repeat(64)}`;

/** Inserts entries into an environment's trust store; returns their ids by subject. */
export async function seedTrustStore(pool: DatabasePool, environmentId: string, entries: EntrySeed[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const e of entries) {
    const status = e.status ?? 'verified';
    const hash = e.manifestHash ?? null;
    ids[e.subject] = await pool.oneFirst(sql.type(z.object({ id: z.uuid() }))`
      INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, allowed_tools, tool_manifest_hash, manifest_pinned_at, revoked_at, verified_at)
      VALUES (${environmentId}, ${e.kind ?? 'mcp_server'}, ${e.subject}, ${e.subject}, ${status},
        ${e.allowedTools === null || e.allowedTools === undefined ? null : sql.array(e.allowedTools, 'text')}, ${hash}, ${hash ? sql.fragment`now()` : null},
        ${status === 'revoked' ? sql.fragment`now()` : null}, ${status === 'verified' ? sql.fragment`now()` : null})
      RETURNING id`);
  }
  return ids;
}

/** Changes an entry's status (and revoked_at with it). */
export async function setEntryStatus(pool: DatabasePool, id: string, status: NonNullable<EntrySeed['status']>) {
  await pool.query(sql.unsafe`
    UPDATE trust_store_entries SET status = ${status}, revoked_at = ${status === 'revoked' ? sql.fragment`now()` : null}, updated_at = now() WHERE id = ${id}`);
}
