import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatchQueries } from '../../db/processes/dispatch.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'false', WEBHOOK_MAX_ENDPOINTS_PER_TENANT: '3' });
  token = await t.token();
  base = `/v1/tenants/${t.credentials.tenantId}/webhooks`;
});
afterAll(() => t.close());

const create = (payload: object, headers = bearer(token), url = base) => t.app.inject({ method: 'POST', url, headers, payload });

describe('webhook endpoints', () => {
  it('creates an endpoint with a secret shown once, then lists, updates and deletes it, auditing each change', async () => {
    // A tenant of its own, so that the endpoints other tests create never show in its list.
    const tenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name: 'Hooks' } })).json().tenant;
    const base = `/v1/tenants/${tenant.id}/webhooks`;
    const res = await create({ url: 'https://93.184.216.34/hooks', description: 'billing', eventTypes: ['tenant.*', 'webhook.test'] }, bearer(token), base);
    expect(res.statusCode).toBe(201);
    const { endpoint, secret } = res.json();
    expect(endpoint).toEqual({
      id: expect.any(String),
      tenantId: tenant.id,
      environmentId: null,
      url: 'https://93.184.216.34/hooks',
      description: 'billing',
      eventTypes: ['tenant.*', 'webhook.test'],
      active: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      secretPrefixes: [secret.slice(0, 14)],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await t.app.inject({ method: 'GET', url: base, headers: bearer(token) });
    expect(list.json()).toMatchObject({ total: 1, endpoints: [{ id: endpoint.id }] });
    expect(list.body).not.toContain(secret);
    const patched = await t.app.inject({ method: 'PATCH', url: `${base}/${endpoint.id}`, headers: bearer(token), payload: { active: false } });
    expect(patched.json().endpoint).toMatchObject({ active: false, disabledReason: 'manual' });
    expect((await t.app.inject({ method: 'DELETE', url: `${base}/${endpoint.id}`, headers: bearer(token) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `${base}/${endpoint.id}`, headers: bearer(token) })).statusCode).toBe(404);
    const events = (await tenantEvents(t, tenant.id)).filter((e) => e.subject?.id === endpoint.id);
    expect(events.map((e) => e.type)).toEqual(['webhook.endpoint.created', 'webhook.endpoint.updated', 'webhook.endpoint.deleted']);
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it.each([
    [{ url: 'http://127.0.0.1:9/x', eventTypes: ['*'] }, 'body.url', /loopback|private/],
    [{ url: 'http://169.254.169.254/latest', eventTypes: ['*'] }, 'body.url', /metadata|link-local/],
    [{ url: 'ftp://example.com', eventTypes: ['*'] }, 'body.url', /http/],
    [{ url: 'https://93.184.216.34', eventTypes: [] }, 'body.eventTypes', /at least one/],
    [{ url: 'https://93.184.216.34', eventTypes: ['tenant.exploded'] }, 'body.eventTypes.0', /matches no event type/],
    [{ url: 'https://93.184.216.34', eventTypes: ['*'], environmentId: crypto.randomUUID() }, 'body.environmentId', /not an environment/],
    [{ url: 'https://93.184.216.34', eventTypes: ['*'], secret: 'mine' }, 'body.secret', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it('names the setting that allows a private target, for webhooks and notification channels alike', async () => {
    const hint = 'outbound calls to private networks are refused (set ALLOW_PRIVATE_NETWORK_TARGETS=true to allow them, e.g. for a receiver on this machine)';
    const webhook = await create({ url: 'http://127.0.0.1:3000/hooks', eventTypes: ['*'] });
    expect(webhook.statusCode).toBe(400);
    expect(webhook.json()).toMatchObject({
      code: 'webhook.url_refused',
      details: [{ path: 'body.url', message: `url points to 127.0.0.1, a loopback address; ${hint}` }],
    });
    const channel = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: bearer(token),
      payload: { name: 'local', kind: 'webhook', eventTypes: ['*'], config: { url: 'http://localhost:3000/hooks' } },
    });
    expect(channel.statusCode).toBe(400);
    expect(channel.json()).toMatchObject({
      code: 'notification_channel.url_refused',
      details: [{ path: 'body.config.url', message: expect.stringMatching(/^url resolves to .*a loopback address; /) }],
    });
    expect(channel.json().details[0].message).toContain(hint);
  });

  it('holds a tenant to WEBHOOK_MAX_ENDPOINTS_PER_TENANT endpoints (409 webhook.limit_reached), counting only its own', async () => {
    const tenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name: 'Capped' } })).json().tenant;
    const base = `/v1/tenants/${tenant.id}/webhooks`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create({ url: `https://93.184.216.34/cap/${i}`, eventTypes: ['*'] }, bearer(token), base);
      expect(res.statusCode).toBe(201);
      ids.push(res.json().endpoint.id);
    }
    const refused = await create({ url: 'https://93.184.216.34/cap/3', eventTypes: ['*'] }, bearer(token), base);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error:
        'This tenant has 3 webhook endpoints, the most it may have (WEBHOOK_MAX_ENDPOINTS_PER_TENANT=3); delete one first, or subscribe an existing endpoint to more event types.',
      code: 'webhook.limit_reached',
      requestId: expect.any(String),
    });
    const list = await t.app.inject({ method: 'GET', url: base, headers: bearer(token) });
    expect(list.json().total).toBe(3);
    expect((await t.app.inject({ method: 'DELETE', url: `${base}/${ids[0]}`, headers: bearer(token) })).statusCode).toBe(200);
    expect((await create({ url: 'https://93.184.216.34/cap/3', eventTypes: ['*'] }, bearer(token), base)).statusCode).toBe(201);
  });

  it('hides the endpoints of tenants in other organizations', async () => {
    const other = await otherOrganization(t);
    const theirTenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'theirs' } })).json().tenant;
    const theirs = (
      await t.app.inject({
        method: 'POST',
        url: `/v1/tenants/${theirTenant.id}/webhooks`,
        headers: bearer(other.token),
        payload: { url: 'https://93.184.216.34', eventTypes: ['*'] },
      })
    ).json().endpoint;
    for (const url of [
      `/v1/tenants/${theirTenant.id}/webhooks`,
      `/v1/tenants/${theirTenant.id}/webhooks/${theirs.id}`,
      `/v1/tenants/${theirTenant.id}/webhooks/${theirs.id}/deliveries`,
    ]) {
      expect((await t.app.inject({ method: 'GET', url, headers: bearer(token) })).statusCode).toBe(404);
    }
    expect((await t.app.inject({ method: 'GET', url: `${base}/${theirs.id}`, headers: bearer(token) })).statusCode).toBe(404);
  });

  it('creates exactly one delivery per (event, endpoint) when two dispatchers run at once', async () => {
    const { endpoint } = (await create({ url: 'https://93.184.216.34/once', eventTypes: ['tenant.*'] })).json();
    for (const n of [1, 2, 3])
      await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${t.credentials.tenantId}`, headers: bearer(token), payload: { description: `d${n}` } });
    const rounds = () => t.pool.transaction((trx) => createDispatchQueries(trx).dispatchBatch(2));
    while ((await Promise.all([rounds(), rounds()])).some((r) => r.dispatched > 0));
    const rows = await t.pool.any(sql.type(z.object({ eventId: z.string() }))`SELECT event_id AS "eventId" FROM deliveries WHERE endpoint_id = ${endpoint.id}`);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(3);
  });
});
