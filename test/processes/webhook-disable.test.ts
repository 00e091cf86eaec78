// An endpoint whose every delivery keeps failing is disabled after WEBHOOK_DISABLE_AFTER (5 days by
// default; half a second here), with an event, and re-enabling it redelivers what was cut short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let t: TestAppWithProcesses;
let receiver: Receiver;

describe.each(ENGINES)('an endpoint failing for too long (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine, env: { WEBHOOK_DISABLE_AFTER: '500ms', WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms,300ms,300ms' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('is disabled with webhook.endpoint.disabled, and re-enabling redelivers the deliveries it cut short', async () => {
    const token = await t.token();
    const base = `/v1/tenants/${t.credentials.tenantId}/webhooks`;
    const { endpoint } = (
      await t.app.inject({ method: 'POST', url: base, headers: bearer(token), payload: { url: `${receiver.url}/down`, eventTypes: ['tenant.updated'] } })
    ).json();
    receiver.script('/down', ...Array<number>(20).fill(500));
    await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(token), payload: { description: 'will fail' } });

    await expect
      .poll(async () => (await t.app.inject({ method: 'GET', url: `${base}/${endpoint.id}`, headers: bearer(token) })).json().endpoint.active, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(false);
    const disabled = (await t.app.inject({ method: 'GET', url: `${base}/${endpoint.id}`, headers: bearer(token) })).json().endpoint;
    expect(disabled).toMatchObject({ disabledReason: 'failing', failingSince: expect.any(String) });
    const events = (await tenantEvents(t, t.credentials.tenantId, { type: 'webhook.endpoint.disabled' })).filter((e) => e.subject?.id === endpoint.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.reason).toMatch(/too long/);
    const failedAttempts = receiver.received.filter((r) => r.path === '/down').length;
    expect(failedAttempts).toBeGreaterThanOrEqual(2);

    receiver.reset('/down'); // healthy again: every request gets 200 from now on
    const enabled = await t.app.inject({ method: 'PATCH', url: `${base}/${endpoint.id}`, headers: bearer(token), payload: { active: true } });
    expect(enabled.json().endpoint).toMatchObject({ active: true, disabledReason: null, failingSince: null });
    await expect.poll(() => receiver.received.filter((r) => r.path === '/down').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const list = (await t.app.inject({ method: 'GET', url: `${base}/${endpoint.id}/deliveries`, headers: bearer(token) })).json().deliveries;
    await expect
      .poll(
        async () =>
          (await t.app.inject({ method: 'GET', url: `${base}/${endpoint.id}/deliveries?status=succeeded`, headers: bearer(token) })).json().deliveries.length,
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(list.some((d: { redeliveryOf: string | null }) => d.redeliveryOf !== null)).toBe(true);
  });
});
