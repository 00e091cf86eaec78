// Threat alerting through the durable channel deliveries: threats at or above the environment's minimum severity
// reach the configured channels (a real local receiver stands in for Slack and PagerDuty); PagerDuty gets the
// threat id as dedup_key, so a reopened threat pages into the same incident; lower severities are not alerted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { hashOf, seedTrustStore } from '../helpers/trust-store-seed.ts';

let t: TestAppWithProcesses;
let token: string;
let receiver: Receiver;

const SLACK = '/slack/services/T1/B1/THREATS';
const channels = (url = '') => `/v1/tenants/${t.credentials.tenantId}/notification-channels${url}`;
const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object) => {
  const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
};
const pagerDutyOf = (routingKey: string) => receiver.received.filter((r) => r.path === '/v2/enqueue' && JSON.parse(r.body).routing_key === routingKey);

describe.each(ENGINES)('threat alerting (%s)', (engine) => {
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestAppWithProcesses({ engine, env: { PAGERDUTY_EVENTS_URL: receiver.url } });
    token = await t.token();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('alerts threats at or above the threshold to the configured channels, with the threat id as PagerDuty dedup_key', async () => {
    const { tenantId, environmentIds } = await newEnvironments(t, token);
    const environmentId = environmentIds[0]!;
    const threats = `/v1/tenants/${tenantId}/environments/${environmentId}/threats`;
    const routingKey = `pd-${crypto.randomUUID()}`;
    // Channels subscribed to something else entirely: the alerting settings alone route threat alerts to them.
    const pagerduty = (await call('POST', channels(), { kind: 'pagerduty', name: 'On call', eventTypes: ['tenant.deleted'], secrets: { routingKey } })).channel;
    const slack = (
      await call('POST', channels(), { kind: 'slack', name: 'Security', eventTypes: ['tenant.deleted'], secrets: { webhookUrl: `${receiver.url}${SLACK}` } })
    ).channel;
    expect((await call('GET', `${threats}/alerting`)).alerting).toEqual({ environmentId, minSeverity: 'high', channelIds: [], updatedAt: null });
    const settings = await call('PUT', `${threats}/alerting`, { minSeverity: 'high', channelIds: [pagerduty.id, slack.id] });
    expect(settings.alerting).toMatchObject({ minSeverity: 'high', channelIds: [pagerduty.id, slack.id] });
    const missing = await t.app.inject({
      method: 'PUT',
      url: `${threats}/alerting`,
      headers: bearer(token),
      payload: { minSeverity: 'low', channelIds: [crypto.randomUUID()] },
    });
    expect(missing.statusCode).toBe(404);

    // A manifest mismatch is critical: alerted. An unknown subject is low: not alerted.
    const server = 'https://tools.example.com/mcp';
    await seedTrustStore(t.pool, environmentId, [{ subject: server, allowedTools: ['search'], manifestHash: hashOf('a') }]);
    const { secret } = await createApiSecret(t.pool, environmentId, ['mcp']);
    const ingest = await t.app.inject({
      method: 'POST',
      url: '/v1/mcp/events',
      headers: bearer(secret),
      payload: {
        events: [
          { id: 'm-1', type: 'manifest.observed', subject: server, manifestHash: hashOf('b') },
          { id: 'u-1', type: 'auth.failed', subject: 'spiffe://stranger' },
        ],
      },
    });
    expect(ingest.statusCode, ingest.body).toBe(202);
    const critical = (ingest.json().threats as { id: string; category: string }[]).find((x) => x.category === 'mcp.manifest_mismatch')!;

    await expect.poll(() => pagerDutyOf(routingKey).length, { timeout: 20_000, interval: 100 }).toBe(1);
    expect(JSON.parse(pagerDutyOf(routingKey)[0]!.body)).toMatchObject({
      event_action: 'trigger',
      dedup_key: critical.id,
      payload: { severity: 'critical', class: 'threat.alerted', custom_details: { data: { threat: { id: critical.id, category: 'mcp.manifest_mismatch' } } } },
    });
    await expect.poll(() => receiver.received.filter((r) => r.path === SLACK).length, { timeout: 20_000, interval: 100 }).toBe(1);
    const slackBody = receiver.received.find((r) => r.path === SLACK)!.body;
    expect(slackBody).toContain(critical.id);
    expect(JSON.parse(slackBody).text).toMatch(/^Threat alerted \(critical\): /);

    // A re-occurrence adds to the open threat and pages nobody; a reopen pages again under the same dedup_key.
    await t.app.inject({
      method: 'POST',
      url: '/v1/mcp/events',
      headers: bearer(secret),
      payload: { events: [{ id: 'm-2', type: 'manifest.observed', subject: server, manifestHash: hashOf('b') }] },
    });
    await call('POST', `${threats}/${critical.id}/resolve`, { reason: 'Pin updated' });
    await call('POST', `${threats}/${critical.id}/reopen`);
    await expect.poll(() => pagerDutyOf(routingKey).length, { timeout: 20_000, interval: 100 }).toBe(2);
    expect(pagerDutyOf(routingKey).map((r) => JSON.parse(r.body).dedup_key)).toEqual([critical.id, critical.id]);

    // Raising a manual threat to the threshold alerts it once.
    const manual = (await call('POST', threats, { severity: 'medium', subject: 'agent-7', summary: 'Odd refunds' })).threat;
    await call('PATCH', `${threats}/${manual.id}`, { severity: 'high' });
    await expect.poll(() => pagerDutyOf(routingKey).length, { timeout: 20_000, interval: 100 }).toBe(3);
    expect(JSON.parse(pagerDutyOf(routingKey)[2]!.body)).toMatchObject({ dedup_key: manual.id, payload: { severity: 'error' } });

    // Raising it further does not alert again: the next alert to arrive is a new critical threat's.
    await call('PATCH', `${threats}/${manual.id}`, { severity: 'critical' });
    const later = (await call('POST', threats, { severity: 'critical', subject: 'agent-8', summary: 'Key leaked' })).threat;
    await expect.poll(() => pagerDutyOf(routingKey).length, { timeout: 20_000, interval: 100 }).toBe(4);
    expect(JSON.parse(pagerDutyOf(routingKey)[3]!.body)).toMatchObject({ dedup_key: later.id, payload: { severity: 'critical' } });

    // Nothing was sent for the low-severity threat, the medium creation, the re-occurrence or the second raise.
    const deliveries = await call('GET', channels(`/${pagerduty.id}/deliveries`));
    expect(deliveries.deliveries).toHaveLength(4);
  });
});
