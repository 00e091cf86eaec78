// The rate-limit windows shared by the instances of one database (api/rate-limits/shared-windows.ts): counted locally far
// from the limit, synced in batches, ranked exactly near it, refused locally beyond it; what is left is stored on close.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../../db/pool.ts';
import { createSharedWindows, type SharedWindows } from '../../api/rate-limits/shared-windows.ts';
import type { Window } from '../../api/plugins/rate-window.ts';
import { createTestDatabase } from '../helpers/database.ts';

let pool: DatabasePool;
const opened: SharedWindows[] = [];
const warnings: unknown[] = [];
beforeAll(async () => {
  pool = await createDatabasePool(await createTestDatabase(), { maxPoolSize: 4 });
});
afterAll(async () => {
  for (const w of opened) await w.close();
  await pool.end();
});

/** An instance's counters; a long interval, so only what a test asks for (or a request near its limit) syncs. */
const instance = (options: { maxKeys?: number; syncIntervalMs?: number } = {}) => {
  const windows = createSharedWindows({ pool, syncIntervalMs: 60_000, log: { warn: (e: unknown) => warnings.push(e) }, ...options });
  opened.push(windows);
  return windows;
};
const stored = (key: string) =>
  pool.maybeOneFirst(sql.unsafe`SELECT count::int FROM rate_limit_windows WHERE key = ${key} AND window_ends_at > now()`) as Promise<number | null>;
const key = () => `test:${crypto.randomUUID()}`;
const counts = async (results: (Window | Promise<Window>)[]) => (await Promise.all(results)).map((w) => w.count);

describe('shared rate-limit windows', () => {
  it('answers at once far from the limit and adds what each instance counted on its sync', async () => {
    const [a, b] = [instance(), instance()];
    const k = key();
    const hits = [a.hit(k, 100, 60_000), a.hit(k, 100, 60_000), b.hit(k, 100, 60_000)];
    expect(hits.some((h) => h instanceof Promise)).toBe(false);
    expect(await counts(hits)).toEqual([1, 2, 1]);
    expect(await stored(k)).toBeNull();
    await a.flush();
    await b.flush();
    expect(await stored(k)).toBe(3);
    // Each instance now starts from the count of all.
    expect((await a.peek(k, 100))?.count).toBeGreaterThanOrEqual(2);
    expect(b.hit(k, 100, 60_000)).toMatchObject({ count: 4 });
    const { resetAt } = (await b.peek(k, 100))!;
    expect(resetAt - Date.now()).toBeGreaterThan(55_000);
    expect(resetAt - Date.now()).toBeLessThanOrEqual(60_000);
  });

  it('grants one budget to two instances taking turns: near the limit each request is ranked by a sync', async () => {
    const [a, b] = [instance(), instance()];
    const k = key();
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) seen.push((await (i % 2 ? b : a).hit(k, 8, 60_000)).count);
    expect(seen.filter((c) => c <= 8)).toHaveLength(8);
    expect(seen.slice(8).every((c) => c > 8)).toBe(true);
    await Promise.all([a.flush(), b.flush()]);
    expect(await stored(k)).toBe(12);
  });

  it('ranks concurrent requests of several instances exactly once the budget is nearly spent', async () => {
    const instances = [instance(), instance(), instance()];
    const k = key();
    // One burst: before its first sync of a key, each instance admits a sixteenth of the limit unsynced (2 here); the rest wait
    // for their rank. Only the unsynced ones of the instances that sync later can exceed the limit.
    const results = await counts(Array.from({ length: 90 }, (_, i) => instances[i % 3]!.hit(k, 40, 60_000)));
    const admitted = results.filter((c) => c <= 40).length;
    expect(admitted).toBeGreaterThanOrEqual(40);
    expect(admitted).toBeLessThanOrEqual(40 + 2 * 2);
    await Promise.all(instances.map((w) => w.flush()));
    expect(await stored(k)).toBe(90);
    // The instance that synced last knows the key is over: it refuses at once, no sync awaited.
    const synced = await Promise.all(instances.map(async (w) => (await w.peek(k, 40))!.count));
    const over = instances[synced.indexOf(90)]!.hit(k, 40, 60_000);
    expect(over).not.toBeInstanceOf(Promise);
    expect((over as Window).count).toBeGreaterThan(40);
  });

  it('starts a window again once the database says it ended', async () => {
    const a = instance();
    const k = key();
    expect(await counts([a.hit(k, 2, 60_000), a.hit(k, 2, 60_000), a.hit(k, 2, 60_000)])).toEqual([1, 2, 3]);
    await a.flush();
    await pool.query(sql.unsafe`UPDATE rate_limit_windows SET window_ends_at = now() - interval '1 second' WHERE key = ${k}`);
    const b = instance();
    expect(await b.hit(k, 2, 60_000)).toMatchObject({ count: 1 });
    await b.flush();
    expect(await stored(k)).toBe(1);
  });

  it('keeps at most maxKeys windows: a new key beyond them is admitted uncounted', async () => {
    const a = instance({ maxKeys: 2 });
    const [k1, k2, k3] = [key(), key(), key()];
    await a.hit(k1, 10, 60_000);
    await a.hit(k2, 10, 60_000);
    expect(await counts([a.hit(k3, 10, 60_000), a.hit(k3, 10, 60_000)])).toEqual([1, 1]);
    expect(a.peek(k3, 10)).toBeUndefined();
    expect(await counts([a.hit(k1, 10, 60_000)])).toEqual([2]);
  });

  it('syncs on its own every interval while it has counts, and stores what is left on close', async () => {
    const a = instance({ syncIntervalMs: 20 });
    const k = key();
    expect(a.hit(k, 1000, 60_000)).toMatchObject({ count: 1 }); // far from the limit: at once
    await expect.poll(() => stored(k), { timeout: 2000, interval: 10 }).toBe(1);
    const b = createSharedWindows({ pool, syncIntervalMs: 60_000, log: { warn: () => {} } });
    await b.hit(k, 1000, 60_000);
    await b.hit(k, 1000, 60_000);
    await b.close();
    expect(await stored(k)).toBe(3);
    expect(warnings).toEqual([]);
  });
});
