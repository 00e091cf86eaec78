// The AuthZEN decision log writer. A decision only pushes to an in-memory buffer (the hot path does no I/O); a
// timer writes the buffer in one multi-row INSERT every 500 ms, sooner once 500 rows wait, and on close. Each
// second, the first `fullRate` decisions of this instance are logged; under heavier load the rest are sampled at
// `sampleRate`, and every row records the rate it was kept at. Beyond the buffer's cap (a database slower than the
// decisions) entries are dropped and counted, with one warning per flush. The same timer deletes rows older than
// the retention, at most once an hour.
import type { DatabasePool } from 'slonik';
import type { Config } from '../../../../lib/config.ts';
import { createDecisionLogQueries, type DecisionRecord } from '../../../../db/access/authzen/decisions.ts';

const FLUSH_EVERY_MS = 500;
const FLUSH_ROWS = 500;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5000;

export interface DecisionLog {
  /** Buffers a decision, subject to sampling under load and the buffer's cap. */
  record(entry: Omit<DecisionRecord, 'sampleRate'>): void;
  /** Writes what is buffered now (and prunes when due). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export interface DecisionLogDeps {
  pool: DatabasePool;
  settings: Config['decisionLog'];
  warn: (details: object, message: string) => void;
  now?: () => number;
  random?: () => number;
}

export function createDecisionLog(deps: DecisionLogDeps): DecisionLog {
  const { sampleRate, fullRate, bufferMax, retentionMs } = deps.settings;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const queries = createDecisionLogQueries(deps.pool);
  let buffer: DecisionRecord[] = [];
  let dropped = 0;
  let prunedAt = -Infinity;
  let running: Promise<void> = Promise.resolve();
  let second = 0;
  let seen = 0;

  const prune = async () => {
    if (now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now();
    const before = new Date(now() - retentionMs);
    while ((await queries.deleteDecisionsBefore(before, PRUNE_BATCH)) === PRUNE_BATCH);
  };

  const write = async () => {
    if (dropped > 0) {
      deps.warn({ dropped }, 'AuthZEN decision log buffer full: decisions dropped');
      dropped = 0;
    }
    while (buffer.length > 0) {
      const batch = buffer.slice(0, FLUSH_ROWS);
      buffer = buffer.slice(batch.length);
      await queries.insertDecisions(batch);
    }
    await prune();
  };

  // One flush at a time, in order; a failed one is logged and the next tick carries on.
  const flush = () => {
    running = running.then(write).catch((error: unknown) => deps.warn({ err: error }, 'AuthZEN decision log write failed'));
    return running;
  };

  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    record: (entry) => {
      const at = Math.floor(now() / 1000);
      if (at !== second) [second, seen] = [at, 0];
      const rate = ++seen <= fullRate ? 1 : sampleRate;
      if (rate < 1 && random() >= rate) return;
      if (buffer.length >= bufferMax) {
        dropped++;
        return;
      }
      buffer.push({ ...entry, sampleRate: rate });
      if (buffer.length === FLUSH_ROWS) void flush();
    },
    flush,
    close: () => {
      clearInterval(timer);
      return flush();
    },
  };
}
