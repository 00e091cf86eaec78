// The per-environment model cache: one load at a time per environment, decisions served by a load that started
// after the last change they could know of, and nothing stale cached.
import { describe, expect, it } from 'vitest';
import { createModelCache } from '../../api/access/models.ts';

/** A load function whose calls the test completes by hand, recording how many run at once. */
function controlledLoads() {
  const calls: { environmentId: string; finish(model: string): void; fail(error: Error): void }[] = [];
  let running = 0;
  let most = 0;
  const load = (environmentId: string) =>
    new Promise<string>((resolve, reject) => {
      running++;
      most = Math.max(most, running);
      const done = () => running--;
      calls.push({ environmentId, finish: (m) => (done(), resolve(m)), fail: (e) => (done(), reject(e)) });
    });
  return { load, calls, most: () => most };
}
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('model cache', () => {
  it('shares one load among concurrent decisions, then answers from memory', async () => {
    const loads = controlledLoads();
    const cache = createModelCache({ load: loads.load });
    const first = [cache.get('e1'), cache.get('e1'), cache.get('e1')];
    await settled();
    expect(loads.calls).toHaveLength(1);
    loads.calls[0]!.finish('m1');
    expect(await Promise.all(first)).toEqual(['m1', 'm1', 'm1']);
    expect(await cache.get('e1')).toBe('m1');
    expect(loads.calls).toHaveLength(1);
  });

  it('never runs two loads of an environment at once: a change during a load queues one more load after it', async () => {
    const loads = controlledLoads();
    const cache = createModelCache({ load: loads.load });
    const before = cache.get('e1');
    await settled();
    cache.evict('e1'); // a change committed while the first load runs
    const after = [cache.get('e1'), cache.get('e1')];
    cache.evict('e1');
    const later = cache.get('e1');
    await settled();
    expect(loads.calls).toHaveLength(1);

    loads.calls[0]!.finish('old');
    expect(await before).toBe('old'); // it asked before the change
    await settled();
    expect(loads.calls).toHaveLength(2); // one more load for all who asked after a change
    loads.calls[1]!.finish('new');
    expect(await Promise.all([...after, later])).toEqual(['new', 'new', 'new']);
    expect(loads.most()).toBe(1);
    expect(await cache.get('e1')).toBe('new'); // cached: nothing changed while it loaded
    expect(loads.calls).toHaveLength(2);
  });

  it('does not cache a load that a change overtook, and loads again on the next decision', async () => {
    const loads = controlledLoads();
    const cache = createModelCache({ load: loads.load });
    const first = cache.get('e1');
    await settled();
    cache.evict('e1');
    loads.calls[0]!.finish('stale');
    expect(await first).toBe('stale');
    const next = cache.get('e1');
    await settled();
    expect(loads.calls).toHaveLength(2);
    loads.calls[1]!.finish('fresh');
    expect(await next).toBe('fresh');
  });

  it('hands a failed load to the decisions waiting for it, and tries again on the next one', async () => {
    const loads = controlledLoads();
    const cache = createModelCache({ load: loads.load });
    const failing = cache.get('e1');
    await settled();
    loads.calls[0]!.fail(new Error('database unreachable'));
    await expect(failing).rejects.toThrow('database unreachable');
    const retry = cache.get('e1');
    await settled();
    loads.calls[1]!.finish('m');
    expect(await retry).toBe('m');
  });

  it('drops every model on clear, and keeps environments apart', async () => {
    const loads = controlledLoads();
    const cache = createModelCache({ load: loads.load });
    const both = [cache.get('e1'), cache.get('e2')];
    await settled();
    expect(loads.calls.map((c) => c.environmentId)).toEqual(['e1', 'e2']); // environments load in parallel
    loads.calls[0]!.finish('a');
    loads.calls[1]!.finish('b');
    expect(await Promise.all(both)).toEqual(['a', 'b']);
    cache.clear();
    const again = cache.get('e2');
    await settled();
    expect(loads.calls).toHaveLength(3);
    loads.calls[2]!.finish('b2');
    expect(await again).toBe('b2');
  });
});
