// The FGA engine as the API runs it (shared by the FGA family and AuthZEN): each environment's compiled models (by
// id, and which is the latest) and a per-instance cache of its tuple look-ups, both dropped when an `iam_fga`
// NOTIFY (sent by triggers on models and tuples, migration 0050) names the environment. Models never change once
// written, so a compiled model stays cached by id; only the environment's pointer to its latest is dropped.
// `HIGHER_CONSISTENCY` reads past both caches, as OpenFGA's consistency preference asks.
// The caches are lru-cache's: a hit relinks the entry in index arrays allocated once. A Map that re-inserts a key on
// each hit (the usual hand-written LRU) allocates a new hash table per hit, and those ended up in the old generation:
// at 15 000 checks/s, 13 MB/s of old-space garbage and a major GC every 20 s, the tail of bench:fga's paced check.
import type { DatabasePool } from 'slonik';
import { createFgaModelQueries } from '../../db/access/fga/models.ts';
import { createFgaTupleReader } from '../../db/access/fga/reader.ts';
import { batchCheck, check } from '../../lib/fga/check.ts';
import { expand } from '../../lib/fga/expand.ts';
import { listObjects } from '../../lib/fga/list-objects.ts';
import { listUsers } from '../../lib/fga/list-users.ts';
import { compileModel, type CompiledModel } from '../../lib/fga/model.ts';
import {
  FGA_LIMITS,
  FgaError,
  type AuthorizationModel,
  type CheckRequest,
  type CheckResult,
  type ListObjectsRequest,
  type ListedUser,
  type ListUsersRequest,
  type QueryOptions,
  type Tuple,
  type TupleReader,
  type UsersetTree,
} from '../../lib/fga/types.ts';
import { LRUCache } from 'lru-cache';
import { FgaApiError } from './errors.ts';
import type { DecisionMetrics } from '../metrics/decisions.ts';

export type Consistency = 'UNSPECIFIED' | 'MINIMIZE_LATENCY' | 'HIGHER_CONSISTENCY';

/** Which model answers and how fresh the tuples must be. */
export interface ModelSelection {
  /** A model id; the latest model when absent. */
  modelId?: string | undefined;
  consistency?: Consistency | undefined;
}

export interface LoadedModel {
  model: AuthorizationModel;
  compiled: CompiledModel;
}

export interface BatchCheckItem extends CheckRequest {
  correlationId: string;
}
export type BatchCheckResult = { allowed: boolean } | { error: { code: string; message: string } };

export interface FgaService {
  /** The model by id, else the latest: 400 `authorization_model_not_found` / `latest_authorization_model_not_found`. */
  model(environmentId: string, selection?: ModelSelection): Promise<LoadedModel>;
  /** The latest model, or null when the store has none. */
  latestModel(environmentId: string, consistency?: Consistency): Promise<LoadedModel | null>;
  /** The environment's tuples as the engine reads them: cached unless `HIGHER_CONSISTENCY`. */
  reader(environmentId: string, consistency?: Consistency): TupleReader;
  check(environmentId: string, selection: ModelSelection, request: CheckRequest): Promise<CheckResult>;
  /** Each item answered on its own: an item's error (an invalid tuple, a missing condition parameter) is its result. */
  batchCheck(environmentId: string, selection: ModelSelection, items: readonly BatchCheckItem[]): Promise<Map<string, BatchCheckResult>>;
  expand(environmentId: string, selection: ModelSelection, request: { object: string; relation: string } & QueryOptions): Promise<UsersetTree>;
  listObjects(
    environmentId: string,
    selection: ModelSelection,
    request: ListObjectsRequest,
    options?: { limit?: number; onObject?: (object: string) => void },
  ): Promise<string[]>;
  listUsers(environmentId: string, selection: ModelSelection, request: ListUsersRequest): Promise<ListedUser[]>;
  /** Drops what is cached of an environment (its `iam_fga` NOTIFY). */
  evict(environmentId: string): void;
  /** Drops everything (the listener may have missed notifications). */
  clear(): void;
}

export interface FgaServiceOptions {
  pool: DatabasePool;
  /** Compiled models kept (all environments). */
  modelCacheSize: number;
  /** Tuple look-ups kept per environment. */
  tupleCacheSize: number;
  /** Environments whose tuple look-ups are kept. */
  tupleCacheEnvironments: number;
  /** Decision latency and cache hits (iam_decision_duration_seconds, iam_decision_cache_lookups_total). */
  metrics?: DecisionMetrics;
}

/** A cached load: its promise, and its value once it has one, so a hot answer needs no await. */
interface Remembered<T> {
  readonly promise: Promise<T>;
  settled: boolean;
  value: T | undefined;
}

/** The cached promise of `key`, else `load`'s, kept unless it fails (concurrent askers share one load). */
function remember<T>(cache: LRUCache<string, Remembered<T>>, key: string, load: () => Promise<T>, counted?: (hit: boolean) => void): Promise<T> {
  const hit = cache.get(key);
  counted?.(hit !== undefined);
  if (hit) return hit.promise;
  const entry: Remembered<T> = { promise: load(), settled: false, value: undefined };
  cache.set(key, entry);
  entry.promise.then(
    (value) => {
      entry.settled = true;
      entry.value = value;
    },
    () => cache.peek(key) === entry && cache.delete(key),
  );
  return entry.promise;
}

/** The entry of `key` once its load has answered; undefined while it is loading, failed or absent. */
function settled<T>(cache: LRUCache<string, Remembered<T>>, key: string): Remembered<T> | undefined {
  const entry = cache.get(key);
  return entry?.settled ? entry : undefined;
}

/** Caches a reader's answers: one entry per distinct call (its arguments in order). */
function cachingReader(inner: TupleReader, cache: LRUCache<string, Remembered<Tuple[]>>, counted?: (hit: boolean) => void): TupleReader {
  return {
    byObjects: (objectType, objectIds, relations) =>
      remember(cache, JSON.stringify(['o', objectType, relations, objectIds]), () => inner.byObjects(objectType, objectIds, relations), counted),
    byUsers: (objectType, relation, users, limit) =>
      remember(cache, JSON.stringify(['u', objectType, relation, users, limit ?? null]), () => inner.byUsers(objectType, relation, users, limit), counted),
  };
}

/** Whether a check's answer depends on the tuples and the model only (no context, no contextual tuples), so it may be cached. */
const cacheable = (request: CheckRequest) => !request.contextualTuples?.length && (!request.context || Object.keys(request.context).length === 0);
const checkKey = (modelId: string, request: CheckRequest) => `${modelId}\0${request.user}\0${request.relation}\0${request.object}`;

export function createFgaService(options: FgaServiceOptions): FgaService {
  const { pool, metrics } = options;
  const counted = (cache: 'fga_model' | 'fga_check' | 'fga_tuples') => metrics && ((hit: boolean) => metrics.cache(cache, hit));
  const modelCounted = counted('fga_model');
  const tuplesCounted = counted('fga_tuples');
  const checksCounted = counted('fga_check');
  const timed = <T>(operation: string, started: number, answer: Promise<T>) => (metrics ? metrics.timed('fga', operation, started, answer) : answer);
  const compiled = new LRUCache<string, Remembered<LoadedModel | null>>({ max: options.modelCacheSize });
  const latestIds = new LRUCache<string, Remembered<string | null>>({ max: options.modelCacheSize });
  // Per environment: its tuple look-ups, and the answers of checks asked without context or contextual tuples (a
  // hot check is then one look-up, as OpenFGA's check query cache). Dropped together by the environment's NOTIFY.
  const caches = new LRUCache<string, { tuples: LRUCache<string, Remembered<Tuple[]>>; checks: LRUCache<string, Remembered<CheckResult>> }>({
    max: options.tupleCacheEnvironments,
  });
  const cacheOf = (environmentId: string) => {
    let cache = caches.get(environmentId);
    if (!cache) {
      cache = { tuples: new LRUCache({ max: options.tupleCacheSize }), checks: new LRUCache({ max: options.tupleCacheSize }) };
      caches.set(environmentId, cache);
    }
    return cache;
  };

  const loadModel = (model: AuthorizationModel | null): LoadedModel | null => (model ? { model, compiled: compileModel(model) } : null);

  // A model not found is not remembered: ids asked for at random must not push compiled models out.
  const byId = async (environmentId: string, id: string) => {
    const key = `${environmentId}/${id}`;
    const found = await remember(compiled, key, async () => loadModel(await createFgaModelQueries(pool, environmentId).find(id)), modelCounted);
    if (!found) compiled.delete(key);
    return found;
  };

  const latestModel = async (environmentId: string, consistency?: Consistency) => {
    if (consistency === 'HIGHER_CONSISTENCY') {
      const id = await createFgaModelQueries(pool, environmentId).latestId();
      return id === null ? null : byId(environmentId, id);
    }
    const id = await remember(latestIds, environmentId, () => createFgaModelQueries(pool, environmentId).latestId());
    return id === null ? null : byId(environmentId, id);
  };

  const model = async (environmentId: string, selection: ModelSelection = {}): Promise<LoadedModel> => {
    if (selection.modelId) {
      const found = await byId(environmentId, selection.modelId);
      if (!found) throw new FgaApiError(400, 'authorization_model_not_found', `Authorization Model '${selection.modelId}' not found`);
      return found;
    }
    const latest = await latestModel(environmentId, selection.consistency);
    if (!latest) throw new FgaApiError(400, 'latest_authorization_model_not_found', 'No authorization models found for this store; write one first.');
    return latest;
  };

  const reader = (environmentId: string, consistency?: Consistency): TupleReader => {
    const inner = createFgaTupleReader(pool, environmentId);
    if (consistency === 'HIGHER_CONSISTENCY') return inner;
    return cachingReader(inner, cacheOf(environmentId).tuples, tuplesCounted);
  };

  return {
    model,
    latestModel,
    reader,

    check: (environmentId, selection, request) => {
      const started = performance.now();
      const fresh = selection.consistency === 'HIGHER_CONSISTENCY';
      // The hot path: a cached answer of a model known here is answered without awaiting anything.
      if (!fresh && cacheable(request)) {
        const modelId = selection.modelId ?? settled(latestIds, environmentId)?.value;
        const known = modelId ? settled(cacheOf(environmentId).checks, checkKey(modelId, request)) : undefined;
        if (known) {
          checksCounted?.(true);
          metrics?.timed('fga', 'check', started, known.value);
          return known.promise;
        }
      }
      return timed(
        'check',
        started,
        (async () => {
          // Taken before the model is awaited: an answer computed while a NOTIFY drops the caches lands in the dropped one.
          const { checks } = cacheOf(environmentId);
          const { compiled: m } = await model(environmentId, selection);
          if (fresh || !cacheable(request)) return check(m, reader(environmentId, selection.consistency), request);
          return remember(checks, checkKey(m.id, request), () => check(m, reader(environmentId), request), checksCounted);
        })(),
      );
    },

    batchCheck: (environmentId, selection, items) =>
      timed(
        'batch_check',
        performance.now(),
        (async () => {
          const { compiled: m } = await model(environmentId, selection);
          const answers = await batchCheck(m, reader(environmentId, selection.consistency), items);
          return new Map(
            items.map((item, i): [string, BatchCheckResult] => {
              const answer = answers[i]!;
              if (!(answer instanceof FgaError)) return [item.correlationId, { allowed: answer.allowed }];
              return [item.correlationId, { error: { code: answer.code, message: answer.message } }];
            }),
          );
        })(),
      ),

    expand: async (environmentId, selection, request) =>
      expand((await model(environmentId, selection)).compiled, reader(environmentId, selection.consistency), request),

    listObjects: (environmentId, selection, request, listOptions = {}) =>
      timed(
        'list_objects',
        performance.now(),
        (async () =>
          listObjects((await model(environmentId, selection)).compiled, reader(environmentId, selection.consistency), request, {
            limit: listOptions.limit ?? FGA_LIMITS.listObjectsResults,
            ...(listOptions.onObject ? { onObject: listOptions.onObject } : {}),
          }))(),
      ),

    listUsers: async (environmentId, selection, request) =>
      listUsers((await model(environmentId, selection)).compiled, reader(environmentId, selection.consistency), request),

    evict: (environmentId) => {
      latestIds.delete(environmentId);
      caches.delete(environmentId);
    },
    clear: () => {
      latestIds.clear();
      caches.clear();
    },
  };
}
