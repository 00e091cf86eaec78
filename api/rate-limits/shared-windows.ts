// Fixed-window request counters shared by every API instance of the database (issue 22), without a database round
// trip per request. Each instance counts locally and adds its deltas to rate_limit_windows in one batched upsert every
// `syncIntervalMs` while it has any (db/rate-limits/windows.ts); the upsert answers each key's count across all
// instances and the window's remaining time. Far from its limit, a key is decided locally: unsynced, an instance admits
// at most a quarter of what is left of the key's budget by its estimate (the count at its last sync, plus what the
// key's rate would have added since then and in one more interval; a sixteenth when that sync is older than two
// intervals or there was none). Beyond that, a request waits for the next sync, started at once and shared by every
// request waiting meanwhile, which ranks it exactly among all instances' requests. A key known to be over its limit is
// refused locally. docs/operations.md, "Rate limits across instances", states the bound.
import type { FastifyBaseLogger } from 'fastify';
import type { DatabasePool } from 'slonik';
import { addToWindows, deleteEndedWindows, type WindowDelta } from '../../db/rate-limits/windows.ts';
import type { Window } from '../plugins/rate-window.ts';

/** The part of a key's remaining budget an instance may admit between two syncs of that key. */
const LOCAL_SHARE = 1 / 4;
/** When an instance's count of a key is not from the last two sync intervals (or from none): it may be far behind. */
const STALE_SHARE = 1 / 16;
const SWEEP_EVERY_MS = 10_000;
const CLEAN_UP_EVERY_MS = 60_000;
const CLEAN_UP_BATCH = 1000;

export interface SharedWindows {
  /**
   * Counts one request of `key` against `max` per `windowMs` and answers its window: at once while the key is far
   * from its limit or known to be over it, else once the next sync has ranked it (a promise).
   */
  hit(key: string, max: number, windowMs: number): Window | Promise<Window>;
  /**
   * The current window of `key` as this instance knows it, without counting; once this instance's own requests of the
   * key near `max` are still unsynced, after the sync that stores them (a promise).
   */
  peek(key: string, max: number): Window | undefined | Promise<Window | undefined>;
  /** Sends the deltas counted so far; resolves once they are stored (or failed and kept for the next sync). */
  flush(): Promise<void>;
  /** Stops the timer and sends what is left: the app's onClose, before the pool closes. */
  close(): Promise<void>;
}

/** `fn` of a value that is there at once (far from a limit) or after a sync (near it): at once when it can be. */
export const andThen = <T, R>(value: T | Promise<T>, fn: (value: T) => R): R | Promise<R> =>
  value instanceof Promise ? (value.then(fn) as Promise<R>) : fn(value);

interface Waiter {
  /** The request's place among the key's unsent requests (1-based). */
  ordinal: number;
  resolve(window: Window): void;
}

interface KeyState {
  windowMs: number;
  /** When the window ends (local clock, from the remaining time the last sync answered). */
  resetAt: number;
  /** The key's count across all instances at the last sync (this instance's synced requests included). */
  global: number;
  /** The key's requests per ms across all instances, as the last sync showed it (see `allowance`). */
  rate: number;
  /** When a sync last answered the key's count in this window (0: none has). */
  syncedAt: number;
  /** Counted here, not sent yet. */
  pending: number;
  /** Sent, not answered yet. */
  inflight: number;
  waiters: Waiter[];
}

interface Sent {
  state: KeyState;
  count: number;
  waiters: Waiter[];
}

export interface SharedWindowsOptions {
  pool: DatabasePool;
  syncIntervalMs: number;
  log: Pick<FastifyBaseLogger, 'warn'>;
  now?: () => number;
  /** Beyond this many keys (a distributed flood's addresses), a new key's request is admitted uncounted. */
  maxKeys?: number;
}

export function createSharedWindows(options: SharedWindowsOptions): SharedWindows {
  const { pool, syncIntervalMs, log, now = Date.now, maxKeys = 100_000 } = options;
  const states = new Map<string, KeyState>();
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let soon = false;
  let flushing: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let sweepAt = 0;
  let cleanUpAt = 0;

  /** How many requests of the key this instance may admit unsynced. */
  const allowance = (state: KeyState, max: number, t: number) => {
    const share = t - state.syncedAt <= 2 * syncIntervalMs ? LOCAL_SHARE : STALE_SHARE;
    // The count now, had the key gone on at the rate the last sync showed (this instance's own requests included),
    // with one more interval for what the other instances counted but had not synced when it ran.
    const expected = state.global + state.rate * (t - state.syncedAt + syncIntervalMs);
    return Math.floor(Math.max(0, max - expected) * share);
  };

  const peekNow = (key: string): Window | undefined => {
    const state = states.get(key);
    if (!state || state.resetAt <= now()) return undefined;
    return { count: state.global + state.inflight + state.pending, resetAt: state.resetAt };
  };

  const sweep = (t: number) => {
    for (const [key, s] of states) if (s.resetAt <= t && s.pending === 0 && s.inflight === 0) states.delete(key);
    sweepAt = t + SWEEP_EVERY_MS;
  };

  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, syncIntervalMs);
    timer.unref();
  };

  const flushSoon = () => {
    if (soon) return;
    soon = true;
    setImmediate(() => {
      soon = false;
      void flush();
    });
  };

  async function send() {
    const deltas: WindowDelta[] = [];
    const sent = new Map<string, Sent>();
    for (const key of dirty) {
      const state = states.get(key);
      if (!state || state.pending === 0) continue;
      deltas.push({ key, count: state.pending, windowMs: state.windowMs });
      sent.set(key, { state, count: state.pending, waiters: state.waiters });
      state.inflight += state.pending;
      state.pending = 0;
      state.waiters = [];
    }
    dirty.clear();
    if (deltas.length === 0) return;
    try {
      const rows = await addToWindows(pool, deltas);
      const t = now();
      for (const row of rows) {
        const { state, count, waiters } = sent.get(row.key)!;
        const resetAt = t + row.remainingMs;
        state.inflight -= count;
        // A window this instance restarted meanwhile has a state of its own: the answer is not its count.
        if (states.get(row.key) === state) {
          // The faster of the window's mean rate and the rate since the last sync: an instance that has not heard of
          // the others for a while assumes they went on, and waits for a sync sooner.
          // (A window's first sync carries up to an interval of requests counted before the window began in Postgres.)
          const elapsed = Math.max(syncIntervalMs, state.windowMs - row.remainingMs);
          const since = state.syncedAt ? (row.count - state.global) / Math.max(1, t - state.syncedAt) : 0;
          state.rate = Math.max(row.count / elapsed, since);
          state.global = row.count;
          state.syncedAt = t;
          state.resetAt = resetAt;
        }
        for (const w of waiters) w.resolve({ count: row.count - count + w.ordinal, resetAt });
      }
    } catch (error) {
      // The deltas are kept for the next sync; meanwhile the waiting requests are decided on what this instance knows.
      log.warn({ err: error }, 'rate-limit sync failed');
      for (const [key, { state, count, waiters }] of sent) {
        state.inflight -= count;
        if (states.get(key) !== state) continue;
        state.pending += count;
        dirty.add(key);
        for (const w of waiters) w.resolve({ count: state.global + w.ordinal, resetAt: state.resetAt });
      }
      schedule();
    }
  }

  async function cleanUp() {
    const t = now();
    if (t < cleanUpAt) return;
    cleanUpAt = t + CLEAN_UP_EVERY_MS;
    await deleteEndedWindows(pool, CLEAN_UP_BATCH).catch((error: unknown) => log.warn({ err: error }, 'rate-limit clean-up failed'));
  }

  /** One sync at a time: a flush asked for during one runs right after it. */
  function flush(): Promise<void> {
    if (flushing) {
      again = true;
      return flushing;
    }
    flushing = (async () => {
      do {
        again = false;
        await send();
        await cleanUp();
      } while (again && dirty.size > 0);
    })().finally(() => {
      flushing = undefined;
      if (dirty.size > 0) schedule();
    });
    return flushing;
  }

  return {
    hit(key, max, windowMs) {
      const t = now();
      if (t >= sweepAt) sweep(t);
      let state = states.get(key);
      if (!state || state.resetAt <= t) {
        if (!state && states.size >= maxKeys) return { count: 1, resetAt: t + windowMs };
        // Requests still waiting in the window that ended count as the first of the next one.
        for (const w of state?.waiters ?? []) w.resolve({ count: w.ordinal, resetAt: t + windowMs });
        // Until its first sync, a window is assumed to start here; the sync answers when it really ends.
        state = { windowMs, resetAt: t + windowMs, global: 0, rate: 0, syncedAt: 0, pending: 0, inflight: 0, waiters: [] };
        states.set(key, state);
      }
      state.pending++;
      dirty.add(key);
      schedule();
      const window = { count: state.global + state.inflight + state.pending, resetAt: state.resetAt };
      if (state.global >= max || state.inflight + state.pending <= allowance(state, max, t)) return window;
      const waiting = state;
      return new Promise<Window>((resolve) => {
        waiting.waiters.push({ ordinal: waiting.pending, resolve });
        flushSoon();
      });
    },
    peek(key, max) {
      const t = now();
      const state = states.get(key);
      if (!state || state.resetAt <= t) return undefined;
      const unsynced = state.inflight + state.pending;
      if (unsynced > 0 && state.global < max && unsynced > allowance(state, max, t)) return flush().then(() => peekNow(key));
      return peekNow(key);
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
      if (dirty.size > 0) await flush();
    },
  };
}
