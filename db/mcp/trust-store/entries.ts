// Trust-store entries of an environment (migration 0019).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { TrustStoreEntry } from './rows.ts';

const Row = TrustStoreEntry.omit({ keys: true });
const columns = sql.fragment`
  e.id, e.environment_id AS "environmentId", e.kind, e.subject, e.name, e.description, e.owner_id AS "ownerId", e.status,
  e.allowed_tools AS "allowedTools", e.tool_manifest_hash AS "toolManifestHash", e.manifest_pinned_at AS "manifestPinnedAt",
  e.metadata, e.verified_at AS "verifiedAt", e.revoked_at AS "revokedAt", e.created_at AS "createdAt", e.updated_at AS "updatedAt"`;

export interface NewEntry {
  kind: string;
  subject: string;
  name: string;
  description: string | null;
  ownerId: string | null;
  allowedTools: string[] | null;
  toolManifestHash: string | null;
  metadata: Record<string, unknown>;
}

/** Fields a change sets (absent: unchanged). */
export interface EntryChanges {
  name?: string;
  description?: string | null;
  ownerId?: string | null;
  allowedTools?: string[] | null;
  toolManifestHash?: string | null;
  metadata?: Record<string, unknown>;
  status?: 'pending' | 'verified' | 'suspended' | 'revoked';
  /** A successful verification: stamps verified_at. */
  verifiedNow?: boolean;
}

export interface EntryFilter {
  kind?: string | undefined;
  status?: string | undefined;
  subject?: string | undefined;
}

const jsonb = (value: unknown) => sql.jsonb(value as never);
const tools = (value: string[] | null) => (value === null ? null : sql.array(value, 'text'));

/** Queries of one environment's trust-store entries: every statement is bound to `environmentId`. */
export function createTrustStoreEntryQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) => db.one(sql.type(Row)`SELECT ${columns} FROM trust_store_entries e WHERE e.environment_id = ${environmentId} AND e.id = ${id}`);
  return {
    /** The entry of that environment; `lock` holds its row until the transaction ends. */
    find: (id: string, lock = false) =>
      db.maybeOne(sql.type(Row)`
        SELECT ${columns} FROM trust_store_entries e WHERE e.id = ${id} AND e.environment_id = ${environmentId}
        ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (filter: EntryFilter, page: PageRequest) => {
      const where = [
        sql.fragment`e.environment_id = ${environmentId}`,
        filter.kind !== undefined && sql.fragment`e.kind = ${filter.kind}`,
        filter.status !== undefined && sql.fragment`e.status = ${filter.status}`,
        filter.subject !== undefined && sql.fragment`e.subject = ${filter.subject}`,
      ].filter((f) => f !== false);
      return selectPage(
        db,
        Row,
        sql.fragment`SELECT ${columns} FROM trust_store_entries e WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`e.created_at, e.id`,
        page,
      );
    },

    insert: async (e: NewEntry) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO trust_store_entries (environment_id, kind, subject, name, description, owner_id, allowed_tools, tool_manifest_hash,
          manifest_pinned_at, metadata)
        VALUES (${environmentId}, ${e.kind}, ${e.subject}, ${e.name}, ${e.description}, ${e.ownerId}, ${tools(e.allowedTools)},
          ${e.toolManifestHash}, ${e.toolManifestHash === null ? null : sql.fragment`now()`}, ${jsonb(e.metadata)})
        RETURNING id`);
      return byId(id);
    },

    /** Applies `c`; a new manifest hash is pinned now, none unpins; `verifiedNow` stamps verified_at, `revoked` revoked_at. */
    update: async (id: string, c: EntryChanges) => {
      const sets = [
        c.name !== undefined && sql.fragment`name = ${c.name}`,
        c.description !== undefined && sql.fragment`description = ${c.description}`,
        c.ownerId !== undefined && sql.fragment`owner_id = ${c.ownerId}`,
        c.allowedTools !== undefined && sql.fragment`allowed_tools = ${tools(c.allowedTools)}`,
        c.toolManifestHash !== undefined &&
          sql.fragment`tool_manifest_hash = ${c.toolManifestHash}, manifest_pinned_at = ${c.toolManifestHash === null ? null : sql.fragment`now()`}`,
        c.metadata !== undefined && sql.fragment`metadata = ${jsonb(c.metadata)}`,
        c.status !== undefined && sql.fragment`status = ${c.status}`,
        c.verifiedNow === true && sql.fragment`verified_at = now()`,
        c.status === 'revoked' && sql.fragment`revoked_at = now()`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      await db.query(sql.unsafe`UPDATE trust_store_entries SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    delete: (id: string) => db.query(sql.unsafe`DELETE FROM trust_store_entries WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Whether a directory user of the environment has this id (held against deletion until the transaction ends). */
    ownerExists: async (userId: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT id FROM users WHERE id = ${userId} AND environment_id = ${environmentId} FOR KEY SHARE`)) !== null,
  };
}
