// Events of the MCP trust store, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { TrustStoreEntry, TrustStoreKey } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const entry = z.looseObject({ entry: TrustStoreEntry });
const key = z.looseObject({ entryId: z.uuid(), key: TrustStoreKey });

export const TRUST_STORE_EVENTS = {
  'mcp.trust_store.entry.created': { description: 'An agent, MCP server or workload was registered in the trust store.', data: entry },
  'mcp.trust_store.entry.updated': {
    description: 'A trust-store entry was changed (name, description, owner, allowed tools, metadata, unpinned manifest or status).',
    data: entry,
  },
  'mcp.trust_store.entry.verified': {
    description: 'A trust-store entry passed verification: proof of possession of one of its keys and, for an MCP server, its tool manifest.',
    data: z.looseObject({
      entry: TrustStoreEntry,
      verification: z.looseObject({ proofOfPossession: z.boolean(), observedManifestHash: z.string().nullable() }),
    }),
  },
  'mcp.trust_store.entry.challenged': {
    description: 'A proof-of-possession challenge (a single-use nonce, not shown here) was issued for a trust-store entry.',
    data: z.looseObject({ entry: TrustStoreEntry, expiresAt: z.string() }),
  },
  'mcp.trust_store.entry.suspended': { description: 'A trust-store entry was suspended.', data: entry },
  'mcp.trust_store.entry.revoked': { description: 'A trust-store entry was revoked, for good: it can no longer change or verify.', data: entry },
  'mcp.trust_store.entry.deleted': { description: 'A trust-store entry was deleted with its keys; `entry` is its last state.', data: entry },
  'mcp.trust_store.manifest.pinned': {
    description: "An MCP server's tool manifest was pinned (`entry.toolManifestHash`): a server exposing another manifest no longer verifies.",
    data: entry,
  },
  'mcp.trust_store.key.added': { description: 'A public key was added to a trust-store entry.', data: key },
  'mcp.trust_store.key.rotated': {
    description: "A trust-store entry's key was rotated: `key` is the new active key, `retiring` the previous ones, which verify until their `retiresAt`.",
    data: z.looseObject({ entryId: z.uuid(), key: TrustStoreKey, retiring: z.array(TrustStoreKey) }),
  },
  'mcp.trust_store.key.revoked': { description: 'A key of a trust-store entry was revoked: it no longer verifies, at once.', data: key },
  'mcp.trust_store.key.retired': { description: 'A retiring key reached the end of its grace period after a rotation and no longer verifies.', data: key },
} as const satisfies Record<string, EventTypeEntry>;
