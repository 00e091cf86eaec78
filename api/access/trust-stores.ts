// Each environment's trust store as the runtime resolve route serves it: every entry's answer serialized once,
// with its strong ETag, kept in a ModelCache (./models.ts) that the `iam_models` NOTIFY invalidates (triggers on
// trust_store_entries and trust_store_keys send it, migration 0019), so a change is seen on the next request
// everywhere. A retiring key leaves the answer at its retiresAt even before its process marks it retired: `until`
// tells the route when to load the environment again.
import { createHash } from 'node:crypto';
import type { ResolvableEntry } from '../../db/mcp/trust-store/resolve.ts';

export interface ResolvedEntry {
  kind: ResolvableEntry['kind'];
  status: ResolvableEntry['status'];
  /** The JSON answer of GET /v1/mcp/trust-store/resolve for this subject. */
  body: string;
  /** A strong ETag: the entry's version (updated_at), its keys' states and the answer itself. */
  etag: string;
  /** When a retiring key in the answer stops verifying (ms), so the answer must be rebuilt; null: never. */
  until: number | null;
}

export type TrustStoreSnapshot = Map<string, ResolvedEntry>;

export function compileTrustStore(entries: readonly ResolvableEntry[], now = Date.now()): TrustStoreSnapshot {
  const snapshot: TrustStoreSnapshot = new Map();
  for (const entry of entries) {
    const keys = entry.status === 'revoked' ? [] : entry.keys.filter((k) => k.retiresAt === null || k.retiresAt > now);
    const retiring = keys.flatMap((k) => (k.retiresAt === null ? [] : [k.retiresAt]));
    const body = JSON.stringify({
      subject: entry.subject,
      kind: entry.kind,
      status: entry.status,
      keys: { keys: keys.map((k) => k.jwk) },
      allowedTools: entry.allowedTools,
      toolManifestHash: entry.toolManifestHash,
      manifestPinnedAt: entry.manifestPinnedAt,
    });
    const version = JSON.stringify([entry.id, entry.updatedAt, keys.map((k) => [k.id, k.status, k.updatedAt]), body]);
    const etag = `"${createHash('sha256').update(version).digest('base64url').slice(0, 32)}"`;
    snapshot.set(entry.subject, { kind: entry.kind, status: entry.status, body, etag, until: retiring.length ? Math.min(...retiring) : null });
  }
  return snapshot;
}

/** Whether an If-None-Match header matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
