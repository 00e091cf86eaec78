// GET /metrics: Prometheus' text format behind `metrics:read`, per route template (never a raw path), with the pool,
// the process outbox per kind and Node's own figures. (A real Prometheus scrapes it in test/deploy/prometheus.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const scrape = async (token: string) => t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
/** The value of one series of the exposition, or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('needs a token with metrics:read', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const other = await scrape(await t.token('tenants:read'));
    expect(other.statusCode).toBe(403);
    expect(other.json().code).toBe('auth.insufficient_scope');
  });

  it('counts requests per route template and status, and times them', async () => {
    const token = await t.token('metrics:read tenants:read');
    const tenant = t.credentials.tenantId;
    const before = sample((await scrape(token)).body, 'iam_http_requests_total{method="GET",route="/v1/tenants/:tenantId",status="200"}') ?? 0;
    for (let i = 0; i < 3; i++) {
      expect((await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenant}`, headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    }
    await t.app.inject({ method: 'GET', url: '/v1/no-such-thing' });
    const res = await scrape(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(sample(res.body, 'iam_http_requests_total{method="GET",route="/v1/tenants/:tenantId",status="200"}')).toBe(before + 3);
    expect(sample(res.body, 'iam_http_request_duration_seconds_count{method="GET",route="/v1/tenants/:tenantId"}')).toBeGreaterThanOrEqual(3);
    expect(sample(res.body, 'iam_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(res.body).not.toContain(tenant);
  });

  it('reports the pool, the process outbox per kind, and Node', async () => {
    const pat = t.credentials.personalAccessToken;
    const invited = await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${t.credentials.organizationId}/invitations`,
      headers: { authorization: `Bearer ${pat}` },
      payload: { email: `metrics-${Date.now()}@example.com` },
    });
    expect(invited.statusCode).toBe(201);
    // This app runs no dispatcher: the invitation's expiry process waits in the outbox.
    const text = (await scrape(await t.token('metrics:read'))).body;
    expect(sample(text, 'iam_outbox_entries{kind="invitation-expiry"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'iam_outbox_oldest_age_seconds{kind="invitation-expiry"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'iam_outbox_dead_entries{kind="invitation-expiry"}')).toBe(0);
    expect(sample(text, 'iam_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'iam_db_pool_waiting_clients')).toBe(0);
    expect(text).toMatch(/^iam_nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^iam_nodejs_heap_size_used_bytes \d/m);
  });
});
