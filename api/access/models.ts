// Each environment's access model, compiled in memory on first use and dropped when the `iam_models` NOTIFY
// (sent by triggers on every directory and RBAC table, migration 0013) names its environment, so the next
// decision on every instance sees a change. Concurrent first uses share one load; a load that started before an
// invalidation is used by the decisions already waiting for it but never cached.

export interface ModelCache<T> {
  get(environmentId: string): Promise<T>;
  /** Drops the model of an environment (called on NOTIFY). */
  evict(environmentId: string): void;
  /** Drops every model (the listener lost its connection and may have missed notifications). */
  clear(): void;
}

export function createModelCache<T>(deps: { load: (environmentId: string) => Promise<T>; max?: number }): ModelCache<T> {
  const max = deps.max ?? 1000;
  const models = new Map<string, T>();
  const loading = new Map<string, Promise<T>>();
  const generations = new Map<string, number>();
  let epoch = 0;

  const load = (environmentId: string) => {
    const generation = generations.get(environmentId) ?? 0;
    const started = epoch;
    const promise = deps.load(environmentId).then(
      (model) => {
        if (loading.get(environmentId) === promise) loading.delete(environmentId);
        if (started === epoch && (generations.get(environmentId) ?? 0) === generation) {
          // Least recently loaded first out: Map iteration order is insertion order.
          if (models.size >= max) models.delete(models.keys().next().value as string);
          models.set(environmentId, model);
        }
        return model;
      },
      (error: unknown) => {
        if (loading.get(environmentId) === promise) loading.delete(environmentId);
        throw error;
      },
    );
    loading.set(environmentId, promise);
    return promise;
  };

  return {
    get: (environmentId) => {
      const model = models.get(environmentId);
      if (model !== undefined) return Promise.resolve(model);
      return loading.get(environmentId) ?? load(environmentId);
    },
    evict: (environmentId) => {
      generations.set(environmentId, (generations.get(environmentId) ?? 0) + 1);
      models.delete(environmentId);
      loading.delete(environmentId);
    },
    clear: () => {
      epoch++;
      models.clear();
      loading.clear();
    },
  };
}
