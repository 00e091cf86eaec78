import { sql } from 'slonik';
import { z } from 'zod';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyWebhookSignature } from '../../lib/webhook-signature.js';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestAppWithProcesses;
let token: string;
let receiver: Receiver;

const tenantId = () => t.credentials.tenantId;
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: `/v1/tenants/${tenantId()}${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

async function createEndpoint(path: string, eventTypes = ['tenant.*']) {
  const res = await api('POST', '/webhooks', { url: `${receiver.url}${path}`, eventTypes });
  expect(res.statusCode).toBe(201);
  return res.json() as { endpoint: { id: string }; secret: string };
}
const emitTenantEvent = async (name: string) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantId()}`, headers: bearer(token), payload: { description: name } });
  expect(res.statusCode).toBe(200);
};
const requestsTo = (path: string) => receiver.received.filter((r) => r.path === path);
interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
}
const deliveriesOf = async (endpointId: string) => (await api('GET', `/webhooks/${endpointId}/deliveries`)).json().deliveries as Delivery[];
const processStatus = (processId: string) => t.processStatus(processId);
const settled = async (endpointId: string, count = 1) => {
  await expect
    .poll(async () => (await deliveriesOf(endpointId)).filter((d) => d.status !== 'pending').length, { timeout: 15_000, interval: 100 })
    .toBeGreaterThanOrEqual(count);
  return deliveriesOf(endpointId);
};

describe.each(ENGINES)('webhook delivery (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    token = await t.token();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('delivers a matching event, signed over the exact bytes, with the service headers', async () => {
    const { endpoint, secret } = await createEndpoint('/signed');
    expect(secret).toMatch(/^whsec_/);
    await emitTenantEvent('signed');
    const [delivery] = await settled(endpoint.id);
    expect(delivery!.status).toBe('succeeded');
    const [request] = requestsTo('/signed');
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event-type': 'tenant.updated',
      'x-service-delivery-id': delivery!.id,
      'x-service-event-id': expect.any(String),
    });
    expect(verifyWebhookSignature(request!.body, String(request!.headers['x-service-signature']), [secret])).toBe(true);
    expect(verifyWebhookSignature(request!.body, String(request!.headers['x-service-signature']), ['whsec_wrong'])).toBe(false);
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      id: request!.headers['x-service-event-id'],
      type: 'tenant.updated',
      createdAt: expect.any(String),
      data: expect.objectContaining({ tenant: expect.objectContaining({ description: 'signed' }) }),
    });
  });

  it('retries through a refused connection, a 500 and a timeout, then succeeds exactly once with every attempt recorded', async () => {
    const { endpoint, secret } = await createEndpoint('/flaky');
    await receiver.down();
    await emitTenantEvent('flaky');
    await expect
      .poll(
        async () =>
          await t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ${endpoint.id}`),
        { timeout: 10_000, interval: 50 },
      )
      .toBe(1);
    receiver.script('/flaky', 500, 'hang');
    await receiver.up();
    const [delivery] = await settled(endpoint.id);
    expect(delivery!.status).toBe('succeeded');
    const detail = (await api('GET', `/webhooks/${endpoint.id}/deliveries/${delivery!.id}`)).json();
    expect(detail.attempts.map((a: { statusCode: number | null; error: string | null }) => [a.statusCode, a.error])).toEqual([
      [null, 'connection refused'],
      [500, null],
      [null, expect.stringMatching(/timeout/)],
      [200, null],
    ]);
    expect(detail.delivery).toMatchObject({ attemptCount: 4, status: 'succeeded', completedAt: expect.any(String) });
    // Attempt 1 was made by a delivery-batch process, the retries by the delivery's own process: both have ended.
    const batchId = await t.pool.oneFirst(sql.type(z.object({ b: z.uuid() }))`SELECT batch_id AS b FROM deliveries WHERE id = ${delivery!.id}`);
    await expect.poll(() => processStatus(`delivery-batch:${batchId}`), { timeout: 10_000, interval: 50 }).toBe('completed');
    await expect.poll(() => processStatus(`webhook-delivery:${delivery!.id}`), { timeout: 10_000, interval: 50 }).toBe('completed');
    const received = requestsTo('/flaky');
    expect(received.filter((r) => r.headers['x-service-delivery-id'] === delivery!.id)).toHaveLength(3); // 500, hang, 200
    for (const r of received) expect(verifyWebhookSignature(r.body, String(r.headers['x-service-signature']), [secret])).toBe(true);
  });

  /** The endpoint's one delivery once attempt 1 failed and its process waits for attempt 2. */
  const waitingForAttempt2 = async (endpointId: string) => {
    await expect
      .poll(async () => (await deliveriesOf(endpointId))[0], { timeout: 10_000, interval: 20 })
      .toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: expect.any(String) });
    const waiting = (await deliveriesOf(endpointId))[0]!;
    const processId = `webhook-delivery:${waiting.id}`;
    await expect.poll(() => processStatus(processId), { timeout: 10_000, interval: 20 }).toBe('running');
    return { waiting, processId };
  };

  it('finishes a delivery exactly once when the engine restarts in the middle of its retry schedule', async () => {
    const { endpoint } = await createEndpoint('/restart');
    // Attempt 1 fails and asks for a 5 s pause before attempt 2: the window the restart must land in.
    receiver.script('/restart', { status: 503, headers: { 'retry-after': '5' } });
    await emitTenantEvent('restart');
    // The delivery waits for attempt 2: attempt 1 recorded, attempt 2 due later, and its process started.
    const { waiting, processId } = await waitingForAttempt2(endpoint.id);
    const due = Date.parse(waiting.nextAttemptAt!);

    expect(requestsTo('/restart')).toHaveLength(1);
    expect(Date.now()).toBeLessThan(due);
    await t.restartProcesses();
    const restartedAt = Date.now();
    // The restart ended inside the pause: before attempt 2 was due, with attempt 2 not made.
    expect(restartedAt, 'the restart outlasted the pause before attempt 2').toBeLessThan(due);
    expect(requestsTo('/restart')).toHaveLength(1);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: 'pending', attemptCount: 1 });

    // The restarted engine resumes the pause and makes attempt 2, once.
    const [delivery] = await settled(endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    await expect.poll(() => processStatus(processId), { timeout: 10_000, interval: 20 }).toBe('completed'); // nothing is left to run
    const received = requestsTo('/restart');
    expect(received).toHaveLength(2);
    expect(received[1]!.at).toBeGreaterThanOrEqual(restartedAt);
    const detail = (await api('GET', `/webhooks/${endpoint.id}/deliveries/${delivery!.id}`)).json();
    expect(detail.attempts.map((a: { attempt: number; statusCode: number | null }) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, 200],
    ]);
  });

  it('starting a delivery process again, while it waits or after it finished, is a no-op', async () => {
    const { endpoint } = await createEndpoint('/again');
    receiver.script('/again', { status: 503, headers: { 'retry-after': '2' } });
    await emitTenantEvent('again');
    const { waiting, processId } = await waitingForAttempt2(endpoint.id);
    const startAgain = () =>
      t.processes.gateway.start('webhook-delivery', processId, { deliveryId: waiting.id, scheduleMs: [0, 100] }, { tenantId: tenantId() });
    await startAgain(); // while it waits for attempt 2

    const [delivery] = await settled(endpoint.id);
    expect(delivery).toMatchObject({ id: waiting.id, status: 'succeeded', attemptCount: 2 });
    await expect.poll(() => processStatus(processId), { timeout: 10_000, interval: 20 }).toBe('completed');
    await startAgain(); // after it finished
    expect(await processStatus(processId)).toBe('completed');
    // A later event's delivery to the same endpoint has come and gone: the first delivery got no third request.
    await emitTenantEvent('again, later');
    await settled(endpoint.id, 2);
    expect(requestsTo('/again').filter((r) => r.headers['x-service-delivery-id'] === waiting.id)).toHaveLength(2);
    const detail = (await api('GET', `/webhooks/${endpoint.id}/deliveries/${waiting.id}`)).json();
    expect(detail.attempts.map((a: { attempt: number; statusCode: number | null }) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, 200],
    ]);
    if (engine === 'temporal') {
      // One run, found in Temporal by its tenant.
      const server = inject('temporal')!;
      const connection = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection, namespace: server.namespace });
        const runs = async () => {
          const found: [string, string][] = [];
          const query = `WorkflowId = '${processId}' AND TenantId = '${tenantId()}'`;
          for await (const run of client.workflow.list({ query })) found.push([run.workflowId, run.status.name]);
          return found;
        };
        // Visibility (the list API) follows the server's state shortly after.
        await expect.poll(runs, { timeout: 10_000, interval: 100 }).toEqual([[processId, 'COMPLETED']]);
      } finally {
        await connection.close();
      }
    }
  });

  it('honours Retry-After', async () => {
    const { endpoint } = await createEndpoint('/slow-down');
    receiver.script('/slow-down', { status: 429, headers: { 'retry-after': '1' } });
    await emitTenantEvent('slow-down');
    await settled(endpoint.id);
    const [first, second] = requestsTo('/slow-down');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('signs with the old and the new secret while a rotation overlaps', async () => {
    const { endpoint, secret: old } = await createEndpoint('/rotate');
    const rotated = (await api('POST', `/webhooks/${endpoint.id}/rotate-secret`)).json();
    expect(rotated.secret).not.toBe(old);
    expect(rotated.endpoint.secretPrefixes).toHaveLength(2);
    await emitTenantEvent('rotate');
    await settled(endpoint.id);
    const [request] = requestsTo('/rotate');
    const header = String(request!.headers['x-service-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(request!.body, header, [old])).toBe(true);
    expect(verifyWebhookSignature(request!.body, header, [rotated.secret])).toBe(true);
  });

  it('disables an endpoint that answers 410, emits webhook.endpoint.disabled, and resumes on re-enable', async () => {
    const { endpoint } = await createEndpoint('/gone');
    receiver.script('/gone', 410);
    await emitTenantEvent('gone');
    await settled(endpoint.id);
    const disabled = (await api('GET', `/webhooks/${endpoint.id}`)).json().endpoint;
    expect(disabled).toMatchObject({ active: false, disabledReason: 'gone', disabledAt: expect.any(String) });
    const events = await tenantEvents(t, tenantId(), { type: 'webhook.endpoint.disabled' });
    expect(events.filter((e) => e.subject?.id === endpoint.id)).toHaveLength(1);
    // An event while it is disabled makes no delivery to it: once another endpoint has received that
    // event, the dispatcher has passed it, and the disabled endpoint still has its one delivery.
    const witness = await createEndpoint('/gone-witness');
    await emitTenantEvent('while disabled');
    await expect
      .poll(() => requestsTo('/gone-witness').some((r) => JSON.parse(r.body).data.tenant.description === 'while disabled'), { timeout: 10_000, interval: 20 })
      .toBe(true);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    expect(requestsTo('/gone')).toHaveLength(1);
    await api('DELETE', `/webhooks/${witness.endpoint.id}`);
    const enabled = await api('PATCH', `/webhooks/${endpoint.id}`, { active: true });
    expect(enabled.json().endpoint).toMatchObject({ active: true, disabledReason: null });
    await emitTenantEvent('after enable');
    await expect.poll(() => requestsTo('/gone').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  });

  it('sends a test event, redelivers a delivery freshly signed, and recovers failures', async () => {
    const { endpoint, secret } = await createEndpoint('/tools', ['webhook.test', 'tenant.*']);
    const sent = await api('POST', `/webhooks/${endpoint.id}/test`);
    expect(sent.statusCode).toBe(202);
    const testDelivery = sent.json().delivery;
    expect(testDelivery).toMatchObject({ eventType: 'webhook.test', status: 'pending' });
    await settled(endpoint.id);
    const redelivered = await api('POST', `/webhooks/${endpoint.id}/deliveries/${testDelivery.id}/redeliver`);
    expect(redelivered.statusCode).toBe(202);
    expect(redelivered.json().delivery).toMatchObject({ redeliveryOf: testDelivery.id, eventType: 'webhook.test' });
    await settled(endpoint.id, 2);
    const tests = requestsTo('/tools');
    expect(tests).toHaveLength(2);
    expect(tests[0]!.headers['x-service-event-id']).toBe(tests[1]!.headers['x-service-event-id']);
    for (const r of tests) expect(verifyWebhookSignature(r.body, String(r.headers['x-service-signature']), [secret])).toBe(true);

    const since = new Date().toISOString();
    receiver.script('/tools', 500, 500, 500, 500);
    await emitTenantEvent('to recover');
    await expect.poll(async () => (await deliveriesOf(endpoint.id)).filter((d) => d.status === 'failed').length, { timeout: 15_000 }).toBe(1);
    const recovered = await api('POST', `/webhooks/${endpoint.id}/recover`, { since });
    expect(recovered.statusCode).toBe(202);
    expect(recovered.json().deliveries).toHaveLength(1);
    await expect.poll(async () => (await deliveriesOf(endpoint.id)).filter((d) => d.status === 'succeeded').length, { timeout: 15_000 }).toBe(3);
  });

  it('lists deliveries with a cursor and a status filter', async () => {
    const { endpoint } = await createEndpoint('/paged');
    for (const n of [1, 2, 3]) await emitTenantEvent(`paged ${n}`);
    await settled(endpoint.id, 3);
    const first = (await api('GET', `/webhooks/${endpoint.id}/deliveries?limit=2`)).json();
    expect(first.deliveries).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = (await api('GET', `/webhooks/${endpoint.id}/deliveries?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.deliveries).toHaveLength(1);
    expect(second).toMatchObject({ nextCursor: null, hasMore: false });
    const ids = [...first.deliveries, ...second.deliveries].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(3);
    expect((await api('GET', `/webhooks/${endpoint.id}/deliveries?status=failed`)).json().deliveries).toEqual([]);
    expect((await api('GET', `/webhooks/${endpoint.id}/deliveries?cursor=nonsense`)).statusCode).toBe(400);
  });
});
