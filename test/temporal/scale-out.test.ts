// Three API instances and two workers (child processes, the Temporal shape) over one database of the run's Postgres
// and the run's Temporal dev server, under mixed load, while one API instance and one worker are killed with SIGKILL
// and started again: no acknowledged write lost, every subscribed event delivered (a duplicate only with the same
// event id), a revoked secret refused by the other instances within 100 ms, and a credential's rate limit counted
// across the instances.
// The same harness, longer and with figures: `npm run bench:scale` (bench/scale.ts).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReceiver, type Receiver } from '../../bench/webhooks/receiver.ts';
import { startCluster, type Cluster } from '../../bench/scale/cluster.ts';
import { drive, prepare, WEBHOOK_ROUTE, type Workload } from '../../bench/scale/load.ts';
import { lostWrites, rateLimitAcrossInstances, revocationPropagation, subscribedEventIds } from '../../bench/scale/checks.ts';
import { createTestDatabase } from '../helpers/database.ts';

const server = inject('temporal');
const title = server ? 'three API instances and two workers' : 'three API instances and two workers: skipped (no Temporal CLI: see the first lines of the run)';

describe.skipIf(!server)(title, () => {
  let cluster: Cluster, receiver: Receiver, workload: Workload;

  beforeAll(async () => {
    receiver = await startReceiver();
    cluster = await startCluster({
      databaseUrl: await createTestDatabase(),
      temporalAddress: server!.address,
      namespace: server!.namespace,
      bundlePath: server!.bundlePath,
      apis: 3,
      workers: 2,
      env: { RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'info', WEBHOOK_RETRY_SCHEDULE: '1s,1s,2s,5s' },
    });
    workload = await prepare(cluster, receiver.url);
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  it('loses no acknowledged write and delivers every event while an API instance and a worker are killed', async () => {
    const [, victimApi] = cluster.apis;
    const [victimWorker] = cluster.workers;
    let done = false;
    const load = drive(cluster, workload, { concurrency: 6, until: () => done });
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Load on all three, then the kills, load on what is left, the restarts, and load on all three again.
    await wait(1500);
    await Promise.all([cluster.kill(victimApi!), cluster.kill(victimWorker!)]);
    await wait(1500);
    await Promise.all([cluster.start(victimApi!), cluster.start(victimWorker!)]);
    await wait(1500);
    done = true;
    const ledger = await load;

    const creates = ledger.users.length + ledger.tenants.length;
    expect(creates).toBeGreaterThan(20);
    expect(Object.keys(ledger.perInstance).sort()).toEqual(cluster.apis.map((i) => i.name).sort());
    // Only connection failures (status 0) and successes: nothing 5xx.
    for (const [kind, byStatus] of Object.entries(ledger.statuses)) {
      expect(
        Object.keys(byStatus).filter((s) => s !== '0' && !s.startsWith('2')),
        `${kind}: ${ledger.refusals.slice(0, 3).join('; ')}`,
      ).toEqual([]);
    }
    expect(await lostWrites(cluster, workload, ledger)).toEqual([]);

    const ids = await subscribedEventIds(cluster, workload);
    expect(ids.length).toBeGreaterThanOrEqual(ledger.users.length);
    const arrived = await receiver.waitFor(WEBHOOK_ROUTE, ids, 45_000);
    const missing = ids.filter((id) => !receiver.arrivals(WEBHOOK_ROUTE).has(id));
    expect({ arrived, missing }).toEqual({ arrived: true, missing: [] });
    // The receiver keys arrivals by event id: any duplicate is a second arrival of an id it has seen, never a new one.
    expect(receiver.arrivals(WEBHOOK_ROUTE).size).toBe(ids.length);
  }, 90_000);

  it('refuses a secret revoked on one instance on the others within 100 ms', async () => {
    const delays = await revocationPropagation(cluster, workload);
    expect(delays).toHaveLength(2);
    for (const ms of delays) expect(ms).toBeLessThan(100);
  });

  // The instances share the secret's counts through Postgres (api/rate-limits/shared-windows.ts): one budget of 30, not
  // three; a request near the limit waits for a sync that ranks it, so at most a few more than 30 pass.
  it('counts a rate limit across the instances', async () => {
    const counts = await rateLimitAcrossInstances(cluster, workload, 30, 60);
    expect(counts.other).toBe(0);
    expect(counts.ok).toBeLessThanOrEqual(33);
    expect(counts.limited).toBeGreaterThanOrEqual(27);
  });
});
