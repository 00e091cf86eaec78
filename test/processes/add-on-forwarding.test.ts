// Events forwarded to the segment and analytics add-ons through the delivery processes, on both engines: what each
// vendor receives (auth, shape), only the configured event types of the add-on's own environment, a vendor failing
// then recovering (with Retry-After), and a restart of the processes in the middle losing no event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startAnalyticsFake, type AnalyticsFake } from '../helpers/vendor-fakes/analytics.ts';

const WRITE_KEY = 'seg-write-key-forwarding';
const API_KEY = 'phc_forwarding-api-key';
let t: TestAppWithProcesses;
let token: string;
let vendor: AnalyticsFake;

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attemptCount: number;
}
type Batch = Record<string, unknown>[];

describe.each(ENGINES)('forwarding add-ons (%s)', (engine) => {
  let base: string;
  let users: string;
  beforeAll(async () => {
    [t, vendor] = await Promise.all([startTestAppWithProcesses({ engine }), startAnalyticsFake({ writeKey: WRITE_KEY, apiKey: API_KEY })]);
    token = await t.token();
    const { tenantId, environmentIds } = await newEnvironments(t, token);
    base = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/add-ons`;
    users = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/directory/users`;
    // Another environment of the tenant: its users are never forwarded.
    const other = `/v1/tenants/${tenantId}/environments/${environmentIds[1]}/directory/users`;
    const call = (method: 'PUT' | 'POST', url: string, payload: object) => t.app.inject({ method, url, headers: bearer(token), payload });
    for (const [kind, secrets, eventTypes] of [
      ['segment', { writeKey: WRITE_KEY }, undefined],
      ['analytics', { apiKey: API_KEY }, ['directory.user.created']],
    ] as const) {
      const saved = await call('PUT', `${base}/${kind}`, { active: true, config: { baseUrl: vendor.url, ...(eventTypes ? { eventTypes } : {}) }, secrets });
      expect(saved.statusCode, saved.body).toBe(200);
    }
    expect((await call('POST', other, { userName: 'elsewhere' })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await vendor?.close();
  });

  const createUser = async (userName: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: users,
      headers: bearer(token),
      payload: { userName, displayName: `User ${userName}`, emails: [{ value: `${userName}@example.com` }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().user as { id: string };
  };
  const deliveries = async (kind: string) =>
    (await t.app.inject({ method: 'GET', url: `${base}/${kind}/deliveries`, headers: bearer(token) })).json().deliveries as Delivery[];
  const settledFor = async (kind: string, count: number) => {
    await expect.poll(async () => (await deliveries(kind)).filter((d) => d.status !== 'pending').length, { timeout: 15_000, interval: 100 }).toBe(count);
    return deliveries(kind);
  };
  const sent = (path: string, userId?: string) =>
    vendor.requests
      .filter((r) => r.path === path)
      .flatMap((r) => r.body.batch as Batch)
      .filter((m) => userId === undefined || m.userId === userId || m.distinct_id === userId);

  it('sends a new user to Segment as identify + track and to PostHog with its traits, each once, and nothing else', async () => {
    const before = { segment: (await deliveries('segment')).length, analytics: (await deliveries('analytics')).length };
    const user = await createUser('ada');
    const [segment] = await settledFor('segment', before.segment + 1);
    const [analytics] = await settledFor('analytics', before.analytics + 1);
    expect(segment).toMatchObject({ eventType: 'directory.user.created', status: 'succeeded', attemptCount: 1 });
    expect(analytics).toMatchObject({ eventType: 'directory.user.created', status: 'succeeded', attemptCount: 1, eventId: segment!.eventId });

    // Neither the add-ons' own events nor the other environment's user were forwarded (dispatched in order, before ada).
    for (const kind of ['segment', 'analytics']) expect(new Set((await deliveries(kind)).map((d) => d.eventType))).toEqual(new Set(['directory.user.created']));
    expect(JSON.stringify(vendor.requests)).not.toContain('elsewhere');
    const request = vendor.requests.find((r) => r.path === '/v1/batch' && JSON.stringify(r.body).includes(user.id))!;
    expect(request.authorization).toBe(`Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`);
    const traits = { email: 'ada@example.com', username: 'ada', name: 'User ada', active: true, createdAt: expect.any(String) };
    expect(sent('/v1/batch', user.id)).toEqual([
      expect.objectContaining({ type: 'identify', userId: user.id, messageId: `${segment!.eventId}-identify`, traits }),
      expect.objectContaining({
        type: 'track',
        userId: user.id,
        messageId: segment!.eventId,
        event: 'directory.user.created',
        properties: expect.objectContaining({ eventId: segment!.eventId, user: expect.objectContaining({ id: user.id }) }),
      }),
    ]);
    expect(vendor.requests.find((r) => r.path === '/batch/' && JSON.stringify(r.body).includes(user.id))).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      body: { api_key: API_KEY },
    });
    expect(sent('/batch/', user.id)).toEqual([
      expect.objectContaining({
        event: 'directory.user.created',
        distinct_id: user.id,
        uuid: segment!.eventId,
        properties: expect.objectContaining({ $set: traits, $lib: 'iam-service' }),
      }),
    ]);
  });

  it('retries a vendor that failed, and loses nothing when the processes restart in the middle', async () => {
    // Segment's first attempt fails asking for a 4 s pause: the window the restart lands in.
    vendor.failNext(1, 503, { path: '/v1/batch', retryAfterSeconds: 4 });
    const before = (await deliveries('segment')).length;
    const analyticsBefore = (await deliveries('analytics')).length;
    const grace = await createUser('grace');
    await expect.poll(async () => (await deliveries('segment'))[0], { timeout: 15_000, interval: 100 }).toMatchObject({ attemptCount: 1, status: 'pending' });
    await t.processes.stop();
    const linus = await createUser('linus'); // while no process runs
    await t.restartProcesses();
    expect(
      (await deliveries('segment')).find((d) => d.status === 'succeeded' && d.attemptCount === 2),
      'restarted before the retry',
    ).toBeUndefined();

    const all = await settledFor('segment', before + 2);
    expect(all.map((d) => d.status).every((s) => s === 'succeeded')).toBe(true);
    expect(all.map((d) => d.attemptCount).sort()).toEqual([...Array<number>(before + 1).fill(1), 2]);
    const retried = all.find((d) => d.attemptCount === 2)!;
    const detail = (await t.app.inject({ method: 'GET', url: `${base}/segment/deliveries/${retried.id}`, headers: bearer(token) })).json();
    expect(detail.delivery).toMatchObject({ id: retried.id, status: 'succeeded', eventType: 'directory.user.created' });
    expect(detail.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, 200],
    ]);
    const tracked = sent('/v1/batch').filter((m) => m.type === 'track');
    for (const id of [grace.id, linus.id]) expect(tracked.filter((m) => m.userId === id).length, id).toBeGreaterThanOrEqual(1);
    // The failed attempt and its retry carried the same messageId, on which Segment dedupes.
    expect(tracked.filter((m) => m.messageId === retried.eventId)).toHaveLength(2);
    await settledFor('analytics', analyticsBefore + 2);
  });
});
