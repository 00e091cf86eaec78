// A backlog of failing deliveries (20 failing `*` subscribers × 100 events, the audit's scenario scaled down) costs
// nothing while it waits for its retries: the idle service stays idle, its memory bounded, a simple request is answered
// at once, and a real `npm start` process with the backlog stops on SIGTERM within the grace period, losing nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded.ts';
import { bearer } from '../helpers/app.ts';
import { untilReached } from '../helpers/progress.ts';
import { startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';

const SUBSCRIBERS = 20;
const EVENTS = 100;
/** The grace period of a container stop (docker's default): SIGTERM must be done by then. */
const GRACE_MS = 10_000;

let t: TestAppWithProcesses;
let base: string;
let token: string;
let refusingPort: number;

const count = (query: ReturnType<typeof sql.unsafe>) => t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM (${query}) q`);
/** Deliveries waiting for their second attempt, each with its process started (and nothing left to start). */
const waiting = () => count(sql.unsafe`SELECT 1 FROM deliveries WHERE status = 'pending' AND attempt_count = 1 AND next_attempt_at > now()`);
/** Waiting deliveries without their own process yet (started through the outbox once their batch made attempt 1). */
const unstarted = async () =>
  (await waiting()) -
  (await count(sql.unsafe`SELECT 1 FROM dbos.workflow_status s JOIN deliveries d ON s.workflow_uuid = 'webhook-delivery:' || d.id
    WHERE s.status = 'PENDING' AND d.status = 'pending' AND d.attempt_count = 1`)) +
  (await count(sql.unsafe`SELECT 1 FROM process_outbox WHERE dead_at IS NULL`));

beforeAll(async () => {
  refusingPort = await freePort(); // nothing listens: every attempt is refused at once
  t = await startTestAppWithProcesses({ env: { WEBHOOK_RETRY_SCHEDULE: '0,1h,1h', WEBHOOK_TIMEOUT_MS: '1000' } });
  token = await t.token();
  base = `/v1/tenants/${t.credentials.tenantId}`;
});
afterAll(() => t.close());

describe('a backlog of failing deliveries', () => {
  it('waits for its retries at no cost, answers at once, and survives a SIGTERM of `npm start` within the grace period', { timeout: 600_000 }, async () => {
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${base}/webhooks`,
        headers: bearer(token),
        payload: { url: `http://127.0.0.1:${refusingPort}/down/${i}`, eventTypes: ['*'] },
      });
      expect(res.statusCode).toBe(201);
    }
    const memoryBefore = settledMemory();
    const patch = (i: number) => t.app.inject({ method: 'PATCH', url: base, headers: bearer(token), payload: { description: `backlog ${i}` } });
    for (let i = 0; i < EVENTS; i += 10) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, j) => patch(i + j)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    }
    const expected = SUBSCRIBERS * EVENTS;
    await untilReached(waiting, expected, { what: 'deliveries waiting for their retry' });
    await expect.poll(unstarted, { timeout: 60_000, interval: 200 }).toBe(0);
    const backlog = await waiting();

    // Idle while the backlog waits: no loop re-reads or re-claims it.
    const cpu = process.cpuUsage();
    const idleStarted = performance.now();
    await wait(3000);
    const used = process.cpuUsage(cpu);
    const share = (used.user + used.system) / 1000 / (performance.now() - idleStarted);
    expect(share, 'CPU share of one core while the backlog waits').toBeLessThan(0.1);
    const memoryAfter = settledMemory();
    expect((memoryAfter.rss - memoryBefore.rss) / 2 ** 20, 'RSS growth in MiB').toBeLessThan(300);
    expect((memoryAfter.heapUsed - memoryBefore.heapUsed) / 2 ** 20, 'heap growth in MiB').toBeLessThan(64);
    // A sweep reads none of the waiting deliveries (their retries are not due): it starts nothing, at once.
    const sweepStarted = performance.now();
    expect((await sweepOnce(t)).started).toBe(0);
    expect(performance.now() - sweepStarted, 'ms for a sweep').toBeLessThan(500);

    // A simple 400 is answered at once.
    const started = performance.now();
    const bad = await t.app.inject({ method: 'POST', url: `${base}/webhooks`, headers: bearer(token), payload: { url: 'not a url', eventTypes: ['*'] } });
    expect(bad.statusCode).toBe(400);
    expect(performance.now() - started, 'ms to answer a 400').toBeLessThan(250);

    // The same backlog under a real `npm start`, stopped by SIGTERM.
    await t.processes.stop();
    const server = await startServer();
    try {
      await wait(1000); // recovered processes and the dispatcher at work
      const stopAt = performance.now();
      server.child.kill('SIGTERM');
      const code = await exited(server.child);
      expect(performance.now() - stopAt, `ms from SIGTERM to exit\n${server.output()}`).toBeLessThan(GRACE_MS);
      expect(code, server.output()).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
    // Nothing lost and nothing held: every delivery still waits for its retry, its process recorded, no lease kept.
    expect(await waiting()).toBe(backlog);
    expect(await count(sql.unsafe`SELECT 1 FROM process_outbox WHERE leased_until > now()`)).toBe(0);
    const processes = await count(sql.unsafe`SELECT 1 FROM dbos.workflow_status WHERE status = 'PENDING' AND name = 'webhook-delivery'`);
    expect(processes).toBeGreaterThanOrEqual(1);
  });
});

async function startServer(): Promise<{ child: ChildProcess; output: () => string }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-backlog-'));
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['api/server.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      DATABASE_URL: t.databaseUrl,
      MASTER_KEY: t.masterKey.toString('hex'),
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1h,1h',
      WEBHOOK_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'info',
    },
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  child.once('exit', () => void fs.rm(dataDir, { recursive: true, force: true }));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not become healthy:\n${out}`);
    await wait(100);
  }
  return { child, output: () => out };
}

/** Memory in use once garbage is collected. */
function settledMemory() {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  return process.memoryUsage();
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
