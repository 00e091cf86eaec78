// An environment's FGA store with OpenFGA's semantics: immutable authorization models (JSON or DSL), tuples written
// and deleted in one transaction with their change log (a stored tuple written again, or a missing one deleted, is a
// 400 unless the request says to ignore it), reads and changes paged by continuation tokens, and assertions per
// model. Checks and lists go through the shared engine service (api/fga).
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createFgaAssertionQueries } from '../../../../db/access/fga/assertions.ts';
import { createFgaChangeQueries } from '../../../../db/access/fga/changes.ts';
import { createFgaModelQueries } from '../../../../db/access/fga/models.ts';
import { toTupleKey, tupleName } from '../../../../db/access/fga/rows.ts';
import { createFgaStoreQueries, type StoreRow } from '../../../../db/access/fga/stores.ts';
import { createFgaTupleQueries, type TupleIdentity } from '../../../../db/access/fga/tuples.ts';
import { validateModel } from '../../../../lib/fga/model.ts';
import { newUlid, storeIdOf } from '../../../../lib/fga/store-id.ts';
import { checkTuple, parseTupleKey, parseUser } from '../../../../lib/fga/tuples.ts';
import type { AuthorizationModel, Tuple, TupleKey, UserRef } from '../../../../lib/fga/types.ts';
import { reachableTenants } from '../../../access/reach.ts';
import type { Principal } from '../../../access/principals.ts';
import type { EnvironmentSecretPrincipal } from '../../../access/environment-secrets.ts';
import { FgaApiError, fgaInvalid } from '../../../fga/errors.ts';
import type { FgaService } from '../../../fga/service.ts';
import { recordFga, storeNotFound, type FgaCaller } from './caller.ts';
import type { Assertion, AuthorizationModelJson, WriteModelJson } from './schemas.ts';

const DEFAULT_PAGE_SIZE = 50;
/** A stored tuple's identity in UTF-8 bytes at most: its index entries stay within Postgres' btree limit (2704 bytes). */
const MAX_TUPLE_BYTES = 2000;
/** The reachable tenants whose stores a bearer token lists. */
const MAX_LISTED_TENANTS = 1000;

const EVENT_OF = {
  model: 'fga.model.written',
  tuples: 'fga.tuples.written',
  assertions: 'fga.assertions.written',
} as const satisfies Record<string, EventType>;

const toStore = (s: StoreRow) => ({ id: storeIdOf(s.environmentId), name: s.name, created_at: s.createdAt, updated_at: s.updatedAt });

const encodeToken = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
/** A continuation token this API issued, decoded and checked by `valid`; else 400 `invalid_continuation_token`. */
function decodeToken<T>(token: string | undefined, valid: (value: unknown) => value is T): T | null {
  if (!token) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!valid(value)) throw new FgaApiError(400, 'invalid_continuation_token', 'Invalid continuation token: it is not one this API issued.');
  return value;
}
const isStrings =
  (n: number) =>
  (v: unknown): v is string[] =>
    Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'string');

/** OpenFGA names a tuple in write errors this way. */
const describe = (t: TupleIdentity) =>
  `user: '${t.userType}:${t.userId}${t.userRelation ? `#${t.userRelation}` : ''}', relation: '${t.relation}', object: '${t.objectType}:${t.objectId}'`;
const identity = (t: TupleIdentity) => tupleName(t);
const sameCondition = (a: Tuple, b: Tuple) =>
  (a.condition?.name ?? '') === (b.condition?.name ?? '') && JSON.stringify(a.condition?.context ?? {}) === JSON.stringify(b.condition?.context ?? {});

/** 'type:id' or 'type:' (the type alone), as Read takes its object. */
function readObject(object: string): { type: string; id: string | undefined } {
  const colon = object.indexOf(':');
  if (colon <= 0) throw fgaInvalid('body.tuple_key.object', "must be 'type:id' or 'type:'");
  const id = object.slice(colon + 1);
  return { type: object.slice(0, colon), id: id === '' ? undefined : id };
}

export interface WriteRequest {
  writes?: { tuple_keys: TupleKey[]; on_duplicate?: 'error' | 'ignore' | undefined } | undefined;
  deletes?: { tuple_keys: Omit<TupleKey, 'condition'>[]; on_missing?: 'error' | 'ignore' | undefined } | undefined;
  authorization_model_id?: string | undefined;
}

export function createFgaStoreService(pool: DatabasePool, fga: FgaService) {
  const models = (caller: FgaCaller) => createFgaModelQueries(pool, caller.environmentId);

  return {
    /** The caller's stores: the secret's one, or those of the environments of the tenants a token reaches. */
    listStores: async (
      caller: { secret: EnvironmentSecretPrincipal } | { principal: Principal },
      query: { page_size?: number | undefined; continuation_token?: string | undefined; name?: string | undefined },
    ) => {
      const size = query.page_size ?? DEFAULT_PAGE_SIZE;
      const after = decodeToken(query.continuation_token, isStrings(1))?.[0] ?? null;
      const stores = createFgaStoreQueries(pool);
      let rows: StoreRow[];
      if ('secret' in caller) {
        const own = after === null ? await stores.find(caller.secret.environmentId) : null;
        rows = own && (query.name === undefined || own.name === query.name) ? [own] : [];
      } else {
        const tenants = await reachableTenants(pool, caller.principal, { limit: MAX_LISTED_TENANTS, offset: 0 });
        rows = await stores.page(
          tenants.items.map((t) => t.id),
          after,
          size + 1,
          query.name,
        );
      }
      const more = rows.length > size;
      const page = rows.slice(0, size);
      return { stores: page.map(toStore), continuation_token: more ? encodeToken([page.at(-1)!.environmentId]) : '' };
    },

    getStore: async (caller: FgaCaller) => {
      const store = await createFgaStoreQueries(pool).find(caller.environmentId);
      if (!store) throw storeNotFound(caller.storeId);
      return toStore(store);
    },

    /** Validates and stores a model (a DSL one comes parsed by the route); it becomes the latest. */
    writeModel: async (caller: FgaCaller, body: WriteModelJson) => {
      // A JSON model's shape beyond its outline is the engine's to check (validateModel).
      const written = body as unknown as Omit<AuthorizationModel, 'id'>;
      const model: AuthorizationModel = {
        id: newUlid(),
        schema_version: written.schema_version,
        type_definitions: written.type_definitions,
        ...(written.conditions && Object.keys(written.conditions).length ? { conditions: written.conditions } : {}),
      };
      await validateModel(model);
      await pool.transaction(async (trx) => {
        await createFgaModelQueries(trx, caller.environmentId).insert(model);
        await recordFga(trx, caller, {
          action: 'fga.model.write',
          resource: { type: 'fga_authorization_model', id: model.id },
          after: { id: model.id, schemaVersion: model.schema_version, types: model.type_definitions.map((t) => t.type) },
          event: {
            type: EVENT_OF.model,
            data: { storeId: caller.storeId, authorizationModelId: model.id, schemaVersion: model.schema_version, typeCount: model.type_definitions.length },
          },
        });
      });
      return { authorization_model_id: model.id };
    },

    readModel: async (caller: FgaCaller, id: string) => {
      const model = await models(caller).find(id);
      if (!model) throw new FgaApiError(400, 'authorization_model_not_found', `Authorization Model '${id}' not found`);
      return { authorization_model: model as unknown as AuthorizationModelJson };
    },

    listModels: async (caller: FgaCaller, query: { page_size?: number | undefined; continuation_token?: string | undefined }) => {
      const size = query.page_size ?? DEFAULT_PAGE_SIZE;
      const before = decodeToken(query.continuation_token, isStrings(1))?.[0] ?? null;
      const found = await models(caller).page(before, size + 1);
      const page = found.slice(0, size);
      return {
        authorization_models: page as unknown as AuthorizationModelJson[],
        continuation_token: found.length > size ? encodeToken([page.at(-1)!.id]) : '',
      };
    },

    /** Deletes, then writes, in one transaction with the change log; the whole request fails or none of it happens. */
    write: async (caller: FgaCaller, body: WriteRequest) => {
      const writeKeys = body.writes?.tuple_keys ?? [];
      const deleteKeys = body.deletes?.tuple_keys ?? [];
      if (writeKeys.length + deleteKeys.length === 0) {
        throw new FgaApiError(400, 'invalid_write_input', 'Invalid input. Make sure you provide at least one write or delete.');
      }
      const { compiled } = await fga.model(caller.environmentId, { modelId: body.authorization_model_id, consistency: 'HIGHER_CONSISTENCY' });
      const writes = writeKeys.map((key) => checkTuple(compiled, key));
      const deletes = deleteKeys.map((key) => parseTupleKey(key));
      const seen = new Set<string>();
      for (const t of [...writes, ...deletes]) {
        if (Buffer.byteLength(identity(t)) > MAX_TUPLE_BYTES) {
          throw new FgaApiError(400, 'invalid_tuple', `Invalid tuple '${identity(t).slice(0, 100)}…': it is longer than ${MAX_TUPLE_BYTES} bytes in UTF-8.`);
        }
        if (seen.has(identity(t))) {
          throw new FgaApiError(400, 'cannot_allow_duplicate_tuples_in_one_request', `duplicate tuple in write: ${describe(t)}`);
        }
        seen.add(identity(t));
      }
      // In one order, so concurrent writes of overlapping tuples lock them in the same order and never deadlock.
      const byIdentity = (a: TupleIdentity, b: TupleIdentity) => (identity(a) < identity(b) ? -1 : identity(a) > identity(b) ? 1 : 0);
      writes.sort(byIdentity);
      deletes.sort(byIdentity);
      await pool.transaction(async (trx) => {
        const tuples = createFgaTupleQueries(trx, caller.environmentId);
        const deleted = deletes.length ? await tuples.delete(deletes) : [];
        if (deleted.length < deletes.length && body.deletes?.on_missing !== 'ignore') {
          const gone = new Set(deleted.map(identity));
          const missing = deletes.find((t) => !gone.has(identity(t)))!;
          throw new FgaApiError(
            400,
            'write_failed_due_to_invalid_input',
            `cannot delete a tuple which does not exist: ${describe(missing)}: invalid write input`,
          );
        }
        const inserted = writes.length ? await tuples.insert(writes) : [];
        if (inserted.length < writes.length) {
          const added = new Set(inserted.map(identity));
          const skipped = writes.filter((t) => !added.has(identity(t)));
          const stored = new Map((await tuples.find(skipped)).map((t) => [identity(t), t]));
          // `ignore` forgives only the same tuple: a stored one with another condition is still an error, as in OpenFGA.
          const conflict = skipped.find(
            (t) => body.writes?.on_duplicate !== 'ignore' || !stored.get(identity(t)) || !sameCondition(t, stored.get(identity(t))!),
          );
          if (conflict) {
            throw new FgaApiError(
              400,
              'write_failed_due_to_invalid_input',
              `cannot write a tuple which already exists: ${describe(conflict)}: tuple to be written already existed or the tuple to be deleted did not exist`,
            );
          }
        }
        if (inserted.length + deleted.length === 0) return;
        const written = inserted.map((t) => ({ ...toTupleKey(t) }));
        const removed = deleted.map((t) => ({ user: toTupleKey(t).user, relation: t.relation, object: `${t.objectType}:${t.objectId}` }));
        await recordFga(trx, caller, {
          action: 'fga.tuples.write',
          resource: { type: 'fga_store', id: caller.storeId },
          after: { writes: written, deletes: removed },
          event: {
            type: EVENT_OF.tuples,
            data: {
              storeId: caller.storeId,
              writeCount: written.length,
              deleteCount: removed.length,
              writes: written.slice(0, 100),
              deletes: removed.slice(0, 100),
            },
          },
        });
      });
      // This instance's caches of the store drop now, so the answer needs no wait for the NOTIFY (for the others).
      fga.evict(caller.environmentId);
      return {};
    },

    read: async (
      caller: FgaCaller,
      body: {
        tuple_key?: { user?: string | undefined; relation?: string | undefined; object?: string | undefined } | undefined;
        page_size?: number | undefined;
        continuation_token?: string | undefined;
      },
    ) => {
      const key = body.tuple_key ?? {};
      const object = key.object !== undefined ? readObject(key.object) : undefined;
      let user: UserRef | undefined;
      if (key.user !== undefined) {
        user = parseUser(key.user);
        if (!user) throw fgaInvalid('body.tuple_key.user', "must be 'type:id', 'type:*' or 'type:id#relation'");
        if (!object) throw fgaInvalid('body.tuple_key.object', "is required with a user (at least its type, as 'type:')");
      }
      const size = body.page_size ?? DEFAULT_PAGE_SIZE;
      const after = decodeToken(body.continuation_token, isStrings(6));
      const found = await createFgaTupleQueries(pool, caller.environmentId).read(
        { objectType: object?.type, objectId: object?.id, relation: key.relation, user },
        after && { objectType: after[0]!, objectId: after[1]!, relation: after[2]!, userType: after[3]!, userId: after[4]!, userRelation: after[5]! },
        size + 1,
      );
      const page = found.slice(0, size);
      const last = page.at(-1)?.tuple;
      return {
        tuples: page.map((r) => ({ key: toTupleKey(r.tuple), timestamp: r.insertedAt })),
        continuation_token:
          found.length > size && last ? encodeToken([last.objectType, last.objectId, last.relation, last.userType, last.userId, last.userRelation]) : '',
      };
    },

    /** Changes oldest first; the token of the last page comes back when there is nothing newer, so a caller can poll with it. */
    changes: async (
      caller: FgaCaller,
      query: { type?: string | undefined; page_size?: number | undefined; continuation_token?: string | undefined; start_time?: string | undefined },
    ) => {
      const size = query.page_size ?? DEFAULT_PAGE_SIZE;
      const token = decodeToken(
        query.continuation_token,
        (v): v is [string, number, string] =>
          Array.isArray(v) && v.length === 3 && typeof v[0] === 'string' && /^\d{1,20}$/.test(v[0]) && Number.isSafeInteger(v[1]) && typeof v[2] === 'string',
      );
      if (token && token[2] !== (query.type ?? '')) {
        throw new FgaApiError(
          400,
          'query_string_type_continuation_token_mismatch',
          `The type in the querystring and the continuation token don't match: '${query.type ?? ''}' and '${token[2]}'.`,
        );
      }
      const found = await createFgaChangeQueries(pool, caller.environmentId).page(
        { objectType: query.type, startTime: token ? undefined : query.start_time },
        token ? { txId: token[0], id: token[1] } : null,
        size,
      );
      const last = found.at(-1);
      return {
        changes: found.map((c) => ({
          tuple_key: toTupleKey(c.tuple),
          operation: c.operation === 'write' ? ('TUPLE_OPERATION_WRITE' as const) : ('TUPLE_OPERATION_DELETE' as const),
          timestamp: c.changedAt,
        })),
        continuation_token: last ? encodeToken([last.txId, last.id, query.type ?? '']) : (query.continuation_token ?? ''),
      };
    },

    readAssertions: async (caller: FgaCaller, modelId: string) => ({
      authorization_model_id: modelId,
      assertions: (await createFgaAssertionQueries(pool, caller.environmentId).find(modelId)) as Assertion[],
    }),

    /** Replaces the model's assertions; each names a type and relation of the model, and its contextual tuples fit it. */
    writeAssertions: async (caller: FgaCaller, modelId: string, assertions: Assertion[]) => {
      const { compiled } = await fga.model(caller.environmentId, { modelId });
      assertions.forEach((assertion, i) => {
        const t = parseTupleKey(assertion.tuple_key);
        const type = compiled.types.get(t.objectType);
        if (!type) throw new FgaApiError(400, 'type_not_found', `type '${t.objectType}' not found (body.assertions.${i}.tuple_key.object)`);
        if (!type.relations.has(t.relation)) {
          throw new FgaApiError(400, 'relation_not_found', `relation '${t.objectType}#${t.relation}' not found (body.assertions.${i}.tuple_key.relation)`);
        }
        for (const key of assertion.contextual_tuples ?? []) checkTuple(compiled, key);
      });
      await pool.transaction(async (trx) => {
        await createFgaAssertionQueries(trx, caller.environmentId).replace(modelId, assertions as Record<string, unknown>[]);
        await recordFga(trx, caller, {
          action: 'fga.assertions.write',
          resource: { type: 'fga_authorization_model', id: modelId },
          after: { count: assertions.length },
          event: { type: EVENT_OF.assertions, data: { storeId: caller.storeId, authorizationModelId: modelId, count: assertions.length } },
        });
      });
    },
  };
}

export type FgaStoreService = ReturnType<typeof createFgaStoreService>;
