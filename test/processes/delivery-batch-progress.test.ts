// A delivery batch cut short (its activity cancelled, as Temporal does when its heartbeat or start-to-close
// timeout passes) sends nothing more, has recorded every attempt it sent, and heartbeated while it ran; its retry
// answers those from their records and sends only the rest: no delivery is sent twice. Batches are sized so that
// one attempt fits the activity timeout.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import type { ActivityProgress } from '../../activities/deliveries.ts';
import { createDeliveryQueries } from '../../db/events/webhooks/deliveries.ts';
import { createDispatchQueries } from '../../db/processes/dispatch.ts';
import { loadConfig } from '../../lib/config.ts';
import { deliveryBatchSize } from '../../worker/dispatcher.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('a delivery batch', () => {
  it('cancelled in the middle is retried without sending any delivery twice', async () => {
    const token = await t.token();
    const tenantId = t.credentials.tenantId;
    const api = (method: 'POST' | 'PATCH', url: string, payload: object) =>
      t.app.inject({ method, url: `/v1/tenants/${tenantId}${url}`, headers: bearer(token), payload });
    expect((await api('POST', '/webhooks', { url: `${receiver.url}/batch`, eventTypes: ['tenant.updated'] })).statusCode).toBe(201);
    for (let i = 0; i < 70; i++) expect((await api('PATCH', '', { description: `change ${i}` })).statusCode).toBe(200);
    const batchId = randomUUID();
    await t.pool.transaction(async (trx) => {
      await createDispatchQueries(trx).dispatchBatch(5000);
      expect((await createDispatchQueries(trx).formBatch(batchId, 1000)).rowCount).toBe(70);
    });

    // 64 requests (every slot) hang past the 300 ms timeout; the batch is cancelled while they do.
    receiver.script('/batch', ...Array.from({ length: 64 }, () => 'hang' as const));
    const cancel = new AbortController();
    const beats: unknown[] = [];
    let progress: ActivityProgress = { heartbeat: (details) => void beats.push(details), signal: cancel.signal };
    const activities = createActivities({
      pool: t.pool,
      masterKey: t.masterKey,
      timeoutMs: 300,
      allowPrivate: true,
      disableAfterMs: 86_400_000,
      baseUrls: { pagerduty: 'http://127.0.0.1:9', datadog: null },
      dnsServers: [],
      progress: () => progress,
    });
    const first = activities.attemptBatch({ batchId, nextDelayMs: 60_000 });
    await expect.poll(() => receiver.received.length).toBe(64);
    cancel.abort(new Error('activity cancelled'));
    await expect(first).rejects.toThrow('activity cancelled');
    expect(receiver.received).toHaveLength(64);
    expect(beats).toContainEqual({ recorded: 64 });

    // The retry sends the 6 it had not sent, and answers the 64 it had from their records.
    progress = { heartbeat: () => {}, signal: new AbortController().signal };
    const retries = await activities.attemptBatch({ batchId, nextDelayMs: 60_000 });
    const sent = receiver.received.map((r) => r.headers['x-service-delivery-id']);
    expect(sent).toHaveLength(70);
    expect(new Set(sent).size).toBe(70);
    expect(retries).toHaveLength(64); // the timed-out ones retry later, in their own processes
    const queries = createDeliveryQueries(t.pool);
    for (const id of sent) expect((await queries.findAttempts(String(id))).map((a) => a.attempt)).toEqual([1]);
  });

  it('holds as many deliveries as one attempt sends within the activity timeout', () => {
    expect(deliveryBatchSize(15_000)).toBe(512); // 64 slots × floor(120 s / 15 s)
    expect(deliveryBatchSize(60_000)).toBe(128);
    expect(deliveryBatchSize(300)).toBe(1000);
    expect(loadConfig({}).webhooks.batchSize).toBeUndefined();
    expect(loadConfig({ DELIVERY_BATCH_SIZE: '200' }).webhooks.batchSize).toBe(200);
  });
});
