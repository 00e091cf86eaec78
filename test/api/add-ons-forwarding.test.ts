// The forwarding add-ons (segment, analytics): saved with their key sealed and hinted, the default identity event types,
// a test call against a local vendor fake checking what it receives (auth and shape), 400s naming fields, deliveries
// listed (empty without processes: the process suite test/processes/add-on-forwarding.test.ts sends them), isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { startAnalyticsFake, type AnalyticsFake } from '../helpers/vendor-fakes/analytics.ts';
import { DEFAULT_FORWARDED_EVENTS } from '../../lib/forwarding/kinds.ts';
import { isKnownEventType } from '../../db/event-catalog.ts';

const WRITE_KEY = 'seg-write-key-0123ABCD';
const API_KEY = 'phc_project-api-key-4567WXYZ';
let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let vendor: AnalyticsFake;
beforeAll(async () => {
  [t, vendor] = await Promise.all([startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }), startAnalyticsFake({ writeKey: WRITE_KEY, apiKey: API_KEY })]);
  token = await t.token();
});
afterAll(async () => {
  await vendor.close();
  await t.close();
});
const fresh = async () => {
  ({
    tenantId,
    environmentIds: [environmentId],
  } = (await newEnvironments(t, token)) as { tenantId: string; environmentIds: [string] });
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/add-ons`;
};
const call = (method: 'GET' | 'PUT' | 'POST', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });
const stamp = expect.stringMatching(/Z$/);

describe('forwarding add-ons (segment, analytics)', () => {
  it('forwards the identity events of the catalog by default', () => {
    expect(DEFAULT_FORWARDED_EVENTS.filter((type) => !isKnownEventType(type))).toEqual([]);
  });

  it('saves segment with its write key sealed and hinted, and tests it with a Segment batch call authenticated with the write key', async () => {
    await fresh();
    const saved = await call('PUT', '/segment', { active: true, config: { baseUrl: vendor.url }, secrets: { writeKey: WRITE_KEY } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({
      addOn: {
        id: expect.any(String),
        environmentId,
        kind: 'segment',
        category: 'customer_data',
        active: true,
        config: { baseUrl: vendor.url, eventTypes: [...DEFAULT_FORWARDED_EVENTS] },
        secretHints: { writeKey: '…ABCD' },
        createdAt: stamp,
        updatedAt: stamp,
      },
    });
    const ok = await call('POST', '/segment/test');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: true, errorCodes: [], secretAccepted: true, statusCode: 200 });
    const sent = vendor.requests.at(-1)!;
    expect(sent).toMatchObject({
      path: '/v1/batch',
      contentType: 'application/json',
      authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`,
    });
    expect(sent.body).toEqual({
      sentAt: stamp,
      batch: [
        {
          type: 'track',
          event: 'iam add-on tested',
          anonymousId: 'iam-add-on-test',
          messageId: expect.any(String),
          timestamp: stamp,
          properties: { test: true },
          context: { library: { name: 'iam-service', version: '1' } },
        },
      ],
    });

    await call('PUT', '/segment', { secrets: { writeKey: 'wrong-key' } });
    expect((await call('POST', '/segment/test')).json()).toEqual({ success: false, errorCodes: ['http_401'], secretAccepted: false, statusCode: 401 });
    await call('PUT', '/segment', { config: { baseUrl: 'http://127.0.0.1:9' } });
    const down = await call('POST', '/segment/test');
    expect(down.statusCode).toBe(502);
    expect(down.json()).toMatchObject({ code: 'add_on.test_failed' });

    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === 'add_on.tested');
    expect(events.map((e) => [e.data.reached, e.data.success, e.data.secretAccepted, e.data.statusCode])).toEqual([
      [true, true, true, 200],
      [true, false, false, 401],
      [false, false, false, null],
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'add_on.test' });
    expect(audit.filter((a) => a.environmentId === environmentId)).toHaveLength(3);
    expect(JSON.stringify([events, audit, await call('GET', '')])).not.toContain(WRITE_KEY);
  });

  it('saves analytics with chosen event types and tests it with a PostHog batch call carrying the API key', async () => {
    await fresh();
    const saved = await call('PUT', '/analytics', {
      active: true,
      config: { baseUrl: `${vendor.url}/`, eventTypes: ['directory.user.*', 'user.signed_in'] },
      secrets: { apiKey: API_KEY },
    });
    expect(saved.json().addOn).toMatchObject({
      kind: 'analytics',
      category: 'analytics',
      active: true,
      config: { baseUrl: vendor.url, eventTypes: ['directory.user.*', 'user.signed_in'] },
      secretHints: { apiKey: '…WXYZ' },
    });
    expect((await call('POST', '/analytics/test')).json()).toEqual({ success: true, errorCodes: [], secretAccepted: true, statusCode: 200 });
    const sent = vendor.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/batch/', authorization: `Bearer ${API_KEY}` });
    expect(sent.body).toEqual({
      api_key: API_KEY,
      historical_migration: false,
      batch: [{ event: 'iam add-on tested', distinct_id: 'iam-add-on-test', timestamp: stamp, uuid: expect.any(String), properties: { test: true } }],
    });
    // Both kinds are active at once: each is the only one of its own category.
    await call('PUT', '/segment', { active: true, config: {}, secrets: { writeKey: WRITE_KEY } });
    expect((await call('GET', '')).json().addOns.map((a: { kind: string; active: boolean }) => [a.kind, a.active])).toEqual([
      ['analytics', true],
      ['segment', true],
    ]);
  });

  it('answers 400 naming the field: a missing key, a bad event type or base URL, an unknown field, deliveries of a bot challenge', async () => {
    await fresh();
    expect((await call('PUT', '/segment', { config: {} })).json()).toMatchObject({
      code: 'add_on.invalid',
      details: [{ path: 'body.secrets.writeKey', message: 'is required' }],
    });
    const bad = await call('PUT', '/analytics', { config: { baseUrl: 'ftp://x', eventTypes: ['Not A Type'], extra: 1 }, secrets: { apiKey: '' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([
      { path: 'body.config.baseUrl', message: 'must be an http(s) URL' },
      { path: 'body.config.eventTypes.0', message: 'must be an event type, `*` or a prefix wildcard like `directory.user.*`' },
      { path: 'body.config.extra', message: 'is not a known field' },
      { path: 'body.secrets.apiKey', message: 'is required' },
    ]);
    const empty = await call('PUT', '/analytics', { config: { eventTypes: [] }, secrets: { apiKey: API_KEY } });
    expect(empty.json().details).toEqual([{ path: 'body.config.eventTypes', message: expect.any(String) }]);
    const notForwarding = await call('GET', '/turnstile/deliveries');
    expect(notForwarding.statusCode).toBe(400);
    expect(notForwarding.json().details[0].path).toBe('params.kind');
    expect((await call('GET', '/segment/deliveries?limit=500')).json().details[0].path).toBe('querystring.limit');
  });

  it('lists deliveries of a saved add-on only; another organization gets 404', async () => {
    await fresh();
    expect((await call('GET', '/segment/deliveries')).json()).toMatchObject({ code: 'add_on.not_found' });
    await call('PUT', '/segment', { config: { baseUrl: vendor.url }, secrets: { writeKey: WRITE_KEY } });
    expect((await call('GET', '/segment/deliveries')).json()).toEqual({ deliveries: [], nextCursor: null, hasMore: false });
    expect((await call('GET', `/segment/deliveries/${crypto.randomUUID()}`)).json()).toMatchObject({ code: 'delivery.not_found' });
    const other = (await otherOrganization(t)).token;
    for (const path of ['/segment/deliveries', '/segment/test']) {
      const res = await call(path.endsWith('test') ? 'POST' : 'GET', path, undefined, other);
      expect(res.statusCode).toBe(404);
    }
  });
});
