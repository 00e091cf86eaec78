// The probes of an orchestrator: live answers while the process serves; ready reports its checks and turns 503 on a
// failing check or a drain. (The SIGTERM sequence of `npm start` is in test/server/restart.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createReadiness } from '../../api/health/readiness.ts';
import { latestMigration } from '../../db/migrate.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('GET /v1/health/live and /v1/health/ready', () => {
  it('answers live and ready with the database check, without a token', async () => {
    const live = await get('/v1/health/live');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ ok: true });
    const ready = await get('/v1/health/ready');
    expect(ready.statusCode).toBe(200);
    // (The other test of this file adds a check to the same app; in either order, the database's is here.)
    expect(ready.json()).toMatchObject({ ok: true, draining: false, checks: { database: { ok: true } } });
  });

  it('is not ready while a check fails, naming it and why, and live stays 200', async () => {
    let broken = true;
    t.app.readiness.add({
      name: 'dispatcher',
      check: async () => {
        if (broken) throw new Error('no dispatch round for 31 s');
      },
    });
    const ready = await get('/v1/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      ok: false,
      draining: false,
      checks: { database: { ok: true }, dispatcher: { ok: false, reason: 'no dispatch round for 31 s' } },
    });
    expect((await get('/v1/health/live')).statusCode).toBe(200);
    broken = false;
    expect((await get('/v1/health/ready')).statusCode).toBe(200);
  });
});

describe('readiness', () => {
  it('is not ready when the database lags behind the migrations this release needs', async () => {
    const head = await latestMigration();
    const report = await createReadiness({ pool: t.pool, expectedHead: head + 1 }).report();
    expect(report).toEqual({
      ok: false,
      draining: false,
      checks: { database: { ok: false, reason: `migrations at ${head}, this release needs ${head + 1}` } },
    });
    // A newer schema (another instance of a newer release migrated first) is fine.
    expect((await createReadiness({ pool: t.pool, expectedHead: head - 1 }).report()).ok).toBe(true);
  });

  it('reports a check that does not answer in time as failed (2 s by default)', async () => {
    const readiness = createReadiness({ pool: t.pool, expectedHead: 0, timeoutMs: 50 });
    readiness.add({ name: 'temporal', check: () => new Promise(() => {}) });
    const report = await readiness.report();
    expect(report.checks.temporal).toEqual({ ok: false, reason: 'no answer within 50 ms' });
  });

  it('turns and stays not ready once drained', async () => {
    const readiness = createReadiness({ pool: t.pool, expectedHead: 0 });
    readiness.drain();
    expect(await readiness.report()).toEqual({ ok: false, draining: true, checks: { database: { ok: true } } });
  });
});
