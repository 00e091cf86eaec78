// MCP runtime events: an environment API secret of purpose mcp, validation naming the field, idempotency by client
// id, limits, stream events, and detection opening exactly one threat per key, then adding occurrences to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { hashOf, seedTrustStore } from '../helpers/trust-store-seed.ts';

let t: TestApp;
let token: string;
let tenantId: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
afterAll(() => t?.close());

const SERVER = 'https://tools.example.com/mcp';
const AGENT = 'spiffe://example.com/agent/billing';
const REVOKED = 'spiffe://example.com/agent/old';

/** A new environment with a seeded trust store and an mcp secret. */
async function environment() {
  const { environmentIds } = await newEnvironments(t, token);
  const environmentId = environmentIds[0]!;
  await seedTrustStore(t.pool, environmentId, [
    { subject: SERVER, kind: 'mcp_server', allowedTools: ['search'], manifestHash: hashOf('a') },
    { subject: AGENT, kind: 'agent', allowedTools: ['search', 'refund'] },
    { subject: REVOKED, kind: 'agent', status: 'revoked', allowedTools: ['search'] },
  ]);
  const { secret } = await createApiSecret(t.pool, environmentId, ['mcp']);
  const post = (payload: unknown, auth = secret) =>
    t.app.inject({ method: 'POST', url: '/v1/mcp/events', headers: { ...bearer(auth), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
  const threats = async (query: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}/environments/${environmentId}/threats`, query, headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().threats as Record<string, unknown>[];
  };
  return { environmentId, secret, post, threats };
}

let n = 0;
const id = () => `evt-${++n}-${crypto.randomUUID().slice(0, 8)}`;
const invoked = (subject: string, tool: string, extra: object = {}) => ({ id: id(), type: 'tool.invoked', subject, tool, outcome: 'allowed', ...extra });

describe('POST /v1/mcp/events', () => {
  it('refuses a missing, bad or wrong-purpose secret', async () => {
    const env = await environment();
    const body = { events: [invoked(AGENT, 'search')] };
    const none = await t.app.inject({ method: 'POST', url: '/v1/mcp/events', payload: body });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('auth.missing_secret');
    expect((await env.post(body, 'adenv_000000000000000000000000000000000000000000000000')).statusCode).toBe(401);
    const { secret: authzenOnly } = await createApiSecret(t.pool, env.environmentId, ['authzen']);
    const wrong = await env.post(body, authzenOnly);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('auth.secret_purpose');
    expect((await env.post(body, token)).statusCode).toBe(401);
  });

  it('validates each event, naming its index and field', async () => {
    const env = await environment();
    const cases: [unknown, string, string][] = [
      [{ events: [{ id: 'x', type: 'tool.invoked', subject: AGENT }] }, 'body.events.0.tool', 'is required for tool.invoked'],
      [
        { events: [invoked(AGENT, 'a'), { id: 'y', type: 'manifest.observed', subject: SERVER }] },
        'body.events.1.manifestHash',
        'is required for manifest.observed',
      ],
      [{ events: [{ ...invoked(AGENT, 'a'), manifestHash: 'md5:1' }] }, 'body.events.0.manifestHash', 'must be sha256:<64 lowercase hex>'],
      [{ events: [{ ...invoked(AGENT, 'a'), id: 'i'.repeat(129) }] }, 'body.events.0.id', 'must be at most 128 characters'],
      [{ events: [{ ...invoked(AGENT, 'a'), attributes: { blob: 'x'.repeat(5000) } }] }, 'body.events.0.attributes', 'must be at most 4 KiB of JSON'],
      [{ events: [{ ...invoked(AGENT, 'a'), colour: 'red' }] }, 'body.events.0.colour', 'is not a known field'],
      [{ events: [{ ...invoked(AGENT, 'a'), type: 'tool.exploded' }] }, 'body.events.0.type', expect.any(String) as never],
      [{ events: [] }, 'body.events', 'must hold at least one event'],
      [{ events: Array.from({ length: 501 }, () => invoked(AGENT, 'search')) }, 'body.events', 'must hold at most 500 events'],
    ];
    for (const [body, path, message] of cases) {
      const res = await env.post(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.json().details).toContainEqual({ path, message });
    }
    const tooLarge = await env.post({ events: [{ ...invoked(AGENT, 'a'), reason: 'r'.repeat(1000) }], padding: 'x'.repeat(1024 * 1024) });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().code).toBe('request.too_large');
  });

  it('stores each event once by its id, as an event of the stream', async () => {
    const env = await environment();
    const events = [
      invoked(AGENT, 'search', { occurredAt: '2026-01-02T03:04:05.678Z', attributes: { latencyMs: 12 } }),
      { id: id(), type: 'manifest.observed', subject: SERVER, manifestHash: hashOf('a') },
      { id: id(), type: 'auth.failed', subject: AGENT, reason: 'expired token' },
    ];
    const first = await env.post({ events });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toEqual({ accepted: 3, duplicates: 0, threats: [] });
    const again = await env.post({ events: [...events, events[0]] });
    expect(again.json()).toEqual({ accepted: 0, duplicates: 4, threats: [] });

    const stream = await tenantEvents(t, tenantId, { environmentId: env.environmentId });
    const mcp = stream.filter((e) => e.type.startsWith('mcp.'));
    expect(mcp.map((e) => e.type)).toEqual(['mcp.tool.invoked', 'mcp.manifest.observed', 'mcp.auth.failed']);
    expect(mcp[0]).toMatchObject({
      environmentId: env.environmentId,
      actor: { type: 'api_secret' },
      subject: { type: 'mcp_observation' },
      data: {
        observation: {
          clientId: events[0]!.id,
          type: 'tool.invoked',
          subject: AGENT,
          tool: 'search',
          outcome: 'allowed',
          manifestHash: null,
          reason: null,
          attributes: { latencyMs: 12 },
          occurredAt: '2026-01-02T03:04:05.678Z',
        },
      },
    });
  });

  const detections = [
    ['mcp.tool_not_allowed', 'medium', () => invoked(AGENT, 'delete_everything'), AGENT],
    ['mcp.manifest_mismatch', 'critical', () => ({ id: id(), type: 'manifest.observed', subject: SERVER, manifestHash: hashOf('b') }), SERVER],
    ['mcp.revoked_subject', 'high', () => invoked(REVOKED, 'search'), REVOKED],
    ['mcp.unknown_subject', 'low', () => ({ id: id(), type: 'auth.failed', subject: 'spiffe://nobody' }), 'spiffe://nobody'],
  ] as const;
  for (const [category, severity, make, subject] of detections) {
    it(`opens one ${category} threat, then adds occurrences to it`, async () => {
      const env = await environment();
      const [a, b, c] = [make(), make(), make()];
      const first = await env.post({ events: [a, b] });
      expect(first.statusCode, first.body).toBe(202);
      const [opened] = first.json().threats as { id: string }[];
      expect(first.json()).toEqual({ accepted: 2, duplicates: 0, threats: [{ id: opened!.id, category, occurrences: 2 }] });
      expect((await env.post({ events: [a, c] })).json()).toEqual({ accepted: 1, duplicates: 1, threats: [{ id: opened!.id, category, occurrences: 3 }] });

      const [threat, ...others] = await env.threats();
      expect(others).toEqual([]);
      expect(threat).toMatchObject({ id: opened!.id, category, severity, status: 'open', subject, occurrences: 3, eventIds: [a.id, b.id, c.id] });
      const types = (await tenantEvents(t, tenantId, { environmentId: env.environmentId })).filter((e) => e.type.startsWith('threat.'));
      expect(types.map((e) => [e.type, e.data.change ?? null])).toEqual([
        ['threat.created', null],
        ['threat.updated', 'occurrence'],
      ]);
    });
  }

  it('raises nothing for allowed tools and the pinned manifest', async () => {
    const env = await environment();
    const res = await env.post({
      events: [invoked(AGENT, 'refund'), invoked(SERVER, 'search'), { id: id(), type: 'manifest.observed', subject: SERVER, manifestHash: hashOf('a') }],
    });
    expect(res.json()).toEqual({ accepted: 3, duplicates: 0, threats: [] });
  });

  it('keeps exactly one open threat per key under concurrent batches, and a new one after it is resolved', async () => {
    const env = await environment();
    const results = await Promise.all(Array.from({ length: 8 }, () => env.post({ events: [invoked(AGENT, 'wire_money'), invoked(AGENT, 'wire_money')] })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(202));
    const open = await env.threats();
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ category: 'mcp.tool_not_allowed', occurrences: 16 });

    const url = `/v1/tenants/${tenantId}/environments/${env.environmentId}/threats/${open[0]!.id as string}/resolve`;
    expect((await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { reason: 'tool removed' } })).statusCode).toBe(200);
    const next = (await env.post({ events: [invoked(AGENT, 'wire_money')] })).json();
    expect(next.threats).toEqual([{ id: expect.not.stringMatching(open[0]!.id as string), category: 'mcp.tool_not_allowed', occurrences: 1 }]);
    expect((await env.threats({ status: 'open' })).map((x) => x.id)).toEqual([next.threats[0].id]);
  });

  it('limits the events per second of an environment with 429 and Retry-After', async () => {
    const config = { ...t.config, mcpEventsRateLimit: 10 };
    const limited = { app: await buildApp({ config, pool: t.pool, databaseUrl: t.databaseUrl, keys: t.keys, masterKey: t.masterKey }) };
    try {
      const { environmentIds } = await newEnvironments(t, token);
      const { secret } = await createApiSecret(t.pool, environmentIds[0]!, ['mcp']);
      const post = (count: number) =>
        limited.app.inject({
          method: 'POST',
          url: '/v1/mcp/events',
          headers: bearer(secret),
          payload: { events: Array.from({ length: count }, () => invoked(AGENT, 'search')) },
        });
      expect((await post(30)).statusCode).toBe(202);
      const refused = await post(1);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('mcp_events.rate_limited');
      const [, wait] = /^The environment sends more than 10 MCP events per 1 second; retry in (\d+) s\.$/.exec(refused.json().error) ?? [];
      expect(refused.headers['retry-after']).toBe(wait);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.app.close();
    }
  });
});
