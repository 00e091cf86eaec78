// Trust-store entries of an environment: registered, changed, suspended, revoked (for good) and deleted, each
// with its audit entry and event. A subject is unique in its environment (a Postgres constraint: concurrent
// creates give one 201 and one 409).
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createTrustStoreEntryQueries, type EntryChanges } from '../../../../db/mcp/trust-store/entries.ts';
import { createTrustStoreKeyQueries } from '../../../../db/mcp/trust-store/keys.ts';
import type { TrustStoreEntry } from '../../../../db/mcp/trust-store/rows.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage } from '../../../common/schemas.ts';
import type { CreateEntryBody, EntriesQuery, UpdateEntryBody } from './schemas.ts';
import { subjectProblem } from './subjects.ts';
import type { z } from 'zod';

type Db = Parameters<typeof createTrustStoreEntryQueries>[0];
type Verb = 'create' | 'update' | 'suspend' | 'pin' | 'revoke' | 'delete';
const EVENT_OF = {
  create: 'mcp.trust_store.entry.created',
  update: 'mcp.trust_store.entry.updated',
  suspend: 'mcp.trust_store.entry.suspended',
  pin: 'mcp.trust_store.manifest.pinned',
  revoke: 'mcp.trust_store.entry.revoked',
  delete: 'mcp.trust_store.entry.deleted',
} as const satisfies Record<Verb, EventType>;

const change = (verb: Verb, entry: TrustStoreEntry, before: TrustStoreEntry | null): CallerChange => ({
  action: `mcp.trust_store.entry.${verb}`,
  resource: { type: 'trust_store_entry', id: entry.id },
  before,
  after: verb === 'delete' ? null : entry,
  event: { type: EVENT_OF[verb], data: { entry } },
});

const revokedConflict = () => conflict('trust_store.revoked', 'The trust-store entry is revoked: it can no longer change or verify.');

/** The entry of the caller's environment (404 otherwise); `lock` holds it until the transaction ends. */
export const findEntry = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
  orNotFound(createTrustStoreEntryQueries(db, caller.scope.environmentId).find(id, lock), 'trust_store_entry', id);

/** The entry, locked, unless it is revoked (409). */
export async function changeableEntry(db: Db, caller: EnvironmentCaller, id: string) {
  const entry = await findEntry(db, caller, id, true);
  if (entry.status === 'revoked') throw revokedConflict();
  return entry;
}

async function checkOwner(db: Db, caller: EnvironmentCaller, ownerId: string | null | undefined) {
  if (ownerId && !(await createTrustStoreEntryQueries(db, caller.scope.environmentId).ownerExists(ownerId))) {
    throw invalidField('body.ownerId', 'must be a directory user of this environment');
  }
}

/** The event a change calls for: suspending, then pinning a new manifest, else a plain update. */
function verbOf(before: TrustStoreEntry, changes: UpdateEntryBody): Verb {
  if (changes.status === 'suspended' && before.status !== 'suspended') return 'suspend';
  if (changes.toolManifestHash && changes.toolManifestHash !== before.toolManifestHash) return 'pin';
  return 'update';
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function createEntryService(pool: DatabasePool) {
  return {
    list: (caller: EnvironmentCaller, query: z.infer<typeof EntriesQuery>) =>
      listPage('entries', query, (page) => createTrustStoreEntryQueries(pool, caller.scope.environmentId).findPage(query, page)),

    find: async (caller: EnvironmentCaller, id: string) => {
      const entry = await findEntry(pool, caller, id);
      return { ...entry, keys: await createTrustStoreKeyQueries(pool, caller.scope.environmentId).ofEntry(id) };
    },

    create: (caller: EnvironmentCaller, input: CreateEntryBody) => {
      const problem = subjectProblem(input.kind, input.subject);
      if (problem) throw invalidField('body.subject', problem);
      return pool.transaction(async (trx) => {
        await checkOwner(trx, caller, input.ownerId);
        const entry = await createTrustStoreEntryQueries(trx, caller.scope.environmentId).insert({
          kind: input.kind,
          subject: input.subject,
          name: input.name,
          description: input.description ?? null,
          ownerId: input.ownerId ?? null,
          allowedTools: input.allowedTools ?? null,
          toolManifestHash: input.toolManifestHash ?? null,
          metadata: input.metadata ?? {},
        });
        await record(trx, caller, change('create', entry, null));
        return entry;
      });
    },

    update: (caller: EnvironmentCaller, id: string, input: UpdateEntryBody) =>
      pool.transaction(async (trx) => {
        const before = await changeableEntry(trx, caller, id);
        const changes = Object.fromEntries(
          Object.entries(input).filter(([k, v]) => v !== undefined && !same(v, (before as Record<string, unknown>)[k])),
        ) as EntryChanges & UpdateEntryBody;
        if (Object.keys(changes).length === 0) return before;
        if (changes.status === 'verified' && before.verifiedAt === null) {
          throw conflict('trust_store.not_verified', 'The entry was never verified: verify it (POST …/verify) instead of setting its status.');
        }
        await checkOwner(trx, caller, changes.ownerId);
        const entry = await createTrustStoreEntryQueries(trx, caller.scope.environmentId).update(id, changes);
        await record(trx, caller, change(verbOf(before, changes), entry, before));
        return entry;
      }),

    /** Final: a revoked entry never changes or verifies again. Revoking a revoked entry returns it unchanged. */
    revoke: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await findEntry(trx, caller, id, true);
        if (before.status === 'revoked') return before;
        const entry = await createTrustStoreEntryQueries(trx, caller.scope.environmentId).update(id, { status: 'revoked' });
        await record(trx, caller, change('revoke', entry, before));
        return entry;
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await findEntry(trx, caller, id, true);
        await createTrustStoreEntryQueries(trx, caller.scope.environmentId).delete(id);
        await record(trx, caller, change('delete', before, before));
        return { success: true as const, id };
      }),
  };
}

export type EntryService = ReturnType<typeof createEntryService>;
