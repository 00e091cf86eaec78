// Two queries must never share one Postgres connection at once: pg warns ("client.query() when the client is already
// executing a query", an error in pg 9). The delivery path (dispatcher, engine, activities) runs here on fresh
// connections, with every process warning collected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const warnings: string[] = [];
const collect = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

describe.each(ENGINES)('the delivery path (%s)', (engine) => {
  let t: TestAppWithProcesses;
  let receiver: Receiver;
  beforeAll(async () => {
    process.on('warning', collect);
    receiver = await startReceiver();
    t = await startTestAppWithProcesses({ engine });
  });
  afterAll(async () => {
    process.off('warning', collect);
    await t.close();
    await receiver.close();
  });

  it('delivers without two queries ever sharing a connection', async () => {
    const token = await t.token();
    const base = `/v1/tenants/${t.credentials.tenantId}`;
    const created = await t.app.inject({
      method: 'POST',
      url: `${base}/webhooks`,
      headers: bearer(token),
      payload: { url: `${receiver.url}/pg`, eventTypes: ['tenant.*'] },
    });
    expect(created.statusCode).toBe(201);
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'PATCH', url: base, headers: bearer(token), payload: { description: `pg ${i}` } });
      expect(res.statusCode).toBe(200);
    }
    await expect.poll(() => receiver.received.filter((r) => r.path === '/pg').length, { timeout: 15_000, interval: 100 }).toBe(3);
    await t.restartProcesses(); // the engine's pool connects again
    expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
  });
});
