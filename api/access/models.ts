// Each environment's access model, compiled in memory on first use and dropped when the `iam_models` NOTIFY
// (sent by triggers on every directory and RBAC table, migration 0013) names its environment, so the next
// decision on every instance sees a change.
//
// Loads are single-flight per environment: a large model takes most of a second to load, and under a stream of
// changes with decisions in between, overlapping loads would pile up. A decision waits for the first load that
// started after the last change it could know of (an invalidation while a load runs queues one more load after
// it, never a parallel one); a load that an invalidation overtakes still serves the decisions that were waiting
// for it, but is never cached.

export interface ModelCache<T> {
  get(environmentId: string): Promise<T>;
  /** Drops the model of an environment (called on NOTIFY). */
  evict(environmentId: string): void;
  /** Drops every model (the listener lost its connection and may have missed notifications). */
  clear(): void;
}

interface Waiter<T> {
  /** The version of the environment's model the decision needs: a load started at or after it serves it. */
  needs: number;
  resolve(model: T): void;
  reject(error: unknown): void;
}

export function createModelCache<T>(deps: {
  load: (environmentId: string) => Promise<T>;
  max?: number;
  /** Told of each look-up: served from memory (hit) or loaded (miss). */
  counted?: (hit: boolean) => void;
}): ModelCache<T> {
  const max = deps.max ?? 1000;
  const models = new Map<string, T>();
  const waiting = new Map<string, Waiter<T>[]>();
  const loading = new Set<string>();
  // A version per environment, raised by each invalidation; `base` raises every environment's at once (clear).
  const versions = new Map<string, number>();
  let base = 0;
  const versionOf = (environmentId: string) => base + (versions.get(environmentId) ?? 0);

  const pump = async (environmentId: string) => {
    if (loading.has(environmentId)) return;
    loading.add(environmentId);
    try {
      while ((waiting.get(environmentId)?.length ?? 0) > 0) {
        const started = versionOf(environmentId);
        let loaded: { model: T } | { error: unknown };
        try {
          loaded = { model: await deps.load(environmentId) };
        } catch (error) {
          loaded = { error };
        }
        const queue = waiting.get(environmentId) ?? [];
        const served = queue.filter((w) => w.needs <= started);
        waiting.set(
          environmentId,
          queue.filter((w) => w.needs > started),
        );
        if ('model' in loaded && started === versionOf(environmentId)) {
          // Least recently loaded first out: Map iteration order is insertion order.
          if (models.size >= max) models.delete(models.keys().next().value as string);
          models.set(environmentId, loaded.model);
        }
        for (const waiter of served) {
          if ('model' in loaded) waiter.resolve(loaded.model);
          else waiter.reject(loaded.error);
        }
      }
    } finally {
      waiting.delete(environmentId);
      loading.delete(environmentId);
    }
  };

  return {
    get: (environmentId) => {
      const model = models.get(environmentId);
      deps.counted?.(model !== undefined);
      if (model !== undefined) return Promise.resolve(model);
      return new Promise<T>((resolve, reject) => {
        const queue = waiting.get(environmentId) ?? [];
        queue.push({ needs: versionOf(environmentId), resolve, reject });
        waiting.set(environmentId, queue);
        void pump(environmentId);
      });
    },
    evict: (environmentId) => {
      versions.set(environmentId, (versions.get(environmentId) ?? 0) + 1);
      models.delete(environmentId);
    },
    clear: () => {
      base++;
      models.clear();
    },
  };
}
