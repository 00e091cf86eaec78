// Backlog caps: an endpoint whose deliveries waiting for a retry pass WEBHOOK_MAX_PENDING_PER_ENDPOINT, or the largest
// backlogs of a tenant whose retries pass WEBHOOK_MAX_PENDING_PER_TENANT, is disabled with an event (reason `backlog`)
// when its next delivery is dispatched; nothing is lost: enabling it again redelivers every delivery it cut short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestAppWithProcesses;
let token: string;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestAppWithProcesses({
    env: { WEBHOOK_MAX_PENDING_PER_ENDPOINT: '5', WEBHOOK_MAX_PENDING_PER_TENANT: '8', WEBHOOK_RETRY_SCHEDULE: '0,1h' },
  });
  token = await t.token();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const newTenant = async (name: string) => (await call('POST', '/v1/tenants', { name })).json().tenant.id as string;
const endpoint = async (tenantId: string, path: string) => {
  const res = await call('POST', `/v1/tenants/${tenantId}/webhooks`, { url: `${receiver.url}${path}`, eventTypes: ['tenant.updated'] });
  expect(res.statusCode).toBe(201);
  return res.json().endpoint.id as string;
};
const emit = async (tenantId: string, count: number) => {
  for (let i = 0; i < count; i++) expect((await call('PATCH', `/v1/tenants/${tenantId}`, { description: `event ${i}` })).statusCode).toBe(200);
};
const endpointOf = async (tenantId: string, id: string) => (await call('GET', `/v1/tenants/${tenantId}/webhooks/${id}`)).json().endpoint;
const deliveriesOf = async (tenantId: string, id: string) =>
  (await call('GET', `/v1/tenants/${tenantId}/webhooks/${id}/deliveries?limit=100`)).json().deliveries as {
    status: string;
    attemptCount: number;
    failureReason: string | null;
  }[];
/** Waits until `count` deliveries of the endpoint wait for their retry (attempt 1 failed). */
const retrying = (tenantId: string, id: string, count: number) =>
  expect
    .poll(async () => (await deliveriesOf(tenantId, id)).filter((d) => d.status === 'pending' && d.attemptCount === 1).length, {
      timeout: 15_000,
      interval: 100,
    })
    .toBe(count);

describe('backlog caps', () => {
  it('disable an endpoint whose backlog passes WEBHOOK_MAX_PENDING_PER_ENDPOINT, with an event; enabling it redelivers what waited', async () => {
    const tenantId = await newTenant('Endpoint cap');
    const id = await endpoint(tenantId, '/cap/endpoint');
    receiver.script('/cap/endpoint', ...Array<number>(6).fill(503));
    await emit(tenantId, 6);
    await retrying(tenantId, id, 6); // within the cap of 5 when each was dispatched
    expect((await endpointOf(tenantId, id)).active).toBe(true);
    await emit(tenantId, 1); // the next delivery finds 6 retries waiting
    await expect.poll(async () => (await endpointOf(tenantId, id)).active, { timeout: 15_000, interval: 100 }).toBe(false);
    expect(await endpointOf(tenantId, id)).toMatchObject({ active: false, disabledReason: 'backlog', disabledAt: expect.any(String) });
    const [disabled, ...more] = (await tenantEvents(t, tenantId, { type: 'webhook.endpoint.disabled' })).filter((e) => e.subject?.id === id);
    expect(more).toEqual([]);
    expect(disabled!.data.reason).toBe(
      '6 deliveries were waiting for a retry to the endpoint, more than the backlog allowed (WEBHOOK_MAX_PENDING_PER_ENDPOINT=5); enabling it again redelivers them.',
    );
    const cut = await deliveriesOf(tenantId, id);
    expect(cut.map((d) => [d.status, d.failureReason])).toEqual(Array(7).fill(['failed', 'endpoint disabled']));

    receiver.reset('/cap/endpoint'); // the receiver is back: every request gets 200
    expect((await call('PATCH', `/v1/tenants/${tenantId}/webhooks/${id}`, { active: true })).statusCode).toBe(200);
    await expect
      .poll(async () => (await deliveriesOf(tenantId, id)).filter((d) => d.status === 'succeeded').length, { timeout: 15_000, interval: 100 })
      .toBe(7);
  });

  it('disable the largest backlogs of a tenant whose waiting deliveries pass WEBHOOK_MAX_PENDING_PER_TENANT, and only those', async () => {
    const tenantId = await newTenant('Tenant cap');
    const first = await endpoint(tenantId, '/cap/tenant/1');
    const second = await endpoint(tenantId, '/cap/tenant/2');
    receiver.script('/cap/tenant/1', ...Array<number>(5).fill(503));
    receiver.script('/cap/tenant/2', ...Array<number>(5).fill(503));
    await emit(tenantId, 5);
    await retrying(tenantId, first, 5);
    await retrying(tenantId, second, 5);
    await emit(tenantId, 1); // 5 + 5 retries waiting: over 8 for the tenant, within 5 for each endpoint
    await expect
      .poll(async () => [(await endpointOf(tenantId, first)).active, (await endpointOf(tenantId, second)).active].filter((a) => !a).length, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe(1);
    const events = (await tenantEvents(t, tenantId, { type: 'webhook.endpoint.disabled' })).map((e) => e.data.reason);
    expect(events).toEqual([
      expect.stringMatching(/^5 deliveries were waiting for a retry to the endpoint, .*\(WEBHOOK_MAX_PENDING_PER_TENANT=8, with 10 retries waiting/),
    ]);
    const states = [await endpointOf(tenantId, first), await endpointOf(tenantId, second)];
    expect(states.map((s) => s.disabledReason).sort()).toEqual(['backlog', null]);
  });
});
