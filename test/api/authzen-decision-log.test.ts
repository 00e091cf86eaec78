// The AuthZEN decision log: every decision (each batch item; a search as one entry) shows up in the management
// API with what was asked and why; the buffered writer samples, caps its buffer and prunes old rows.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { createDecisionLog } from '../../api/families/access/authzen/decision-log.ts';
import type { DecisionRecord } from '../../db/access/authzen/decisions.ts';

let t: TestApp;
let pdp: Pdp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  pdp = await authzenEnvironment(t);
  token = await t.token('authzen:read');
});
afterAll(() => t?.close());

const list = async (query = '') => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/authzen/decisions${query}`,
    headers: bearer(token),
  });
  return { status: res.statusCode, body: res.json() };
};
/** Polls until the log holds `count` entries matching the query (the writer flushes every 500 ms). */
const logged = async (query: string, count: number) => {
  await expect.poll(async () => (await list(query)).body.decisions?.length, { timeout: 5000 }).toBe(count);
  return (await list(query)).body.decisions as Record<string, unknown>[];
};
const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('GET …/authzen/decisions', () => {
  it('logs an evaluation with what was asked, the decision and why', async () => {
    await pdp.post(
      'evaluation',
      { subject: { type: 'user', id: 'alice' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } },
      { 'x-request-id': 'pep request 1' },
    );
    const [entry] = await logged('?subjectId=alice&resourceId=doc-1', 1);
    expect(entry).toEqual({
      id: expect.any(String),
      decidedAt: ts,
      endpoint: 'evaluation',
      subject: { type: 'user', id: 'alice' },
      action: 'read',
      resource: { type: 'document', id: 'doc-1' },
      decision: true,
      reason: expect.objectContaining({ permitted: true, role: 'viewer', permission: 'document:read' }),
      requestId: 'pep request 1',
      apiSecretId: pdp.secretId,
      durationMicros: expect.any(Number),
      sampleRate: 1,
    });
  });

  it('logs each item of a batch (an incomplete one too), and a search as one entry with its count', async () => {
    await pdp.post('evaluations', {
      subject: { type: 'user', id: 'bob' },
      action: { name: 'write' },
      evaluations: [{ resource: { type: 'document', id: 'doc-1' } }, { resource: { type: 'document', id: 'doc-2' } }, { resource: { type: 'document' } }],
    });
    const items = await logged('?subjectId=bob&action=write', 3);
    expect(items.map((e) => [e.endpoint, (e.resource as { id: string }).id, e.decision])).toEqual([
      ['evaluations', null, false],
      ['evaluations', 'doc-2', true],
      ['evaluations', 'doc-1', false],
    ]);
    expect(items[0]).toMatchObject({ reason: { permitted: false, code: 'invalid_request' }, durationMicros: null });
    expect(items[2]!.reason).toMatchObject({ permitted: false, code: 'no_permission' });

    await pdp.post('search/resource', { subject: { type: 'user', id: 'bob' }, action: { name: 'read' }, resource: { type: 'document' } });
    const [search] = await logged('?subjectId=bob&action=read', 1);
    expect(search).toMatchObject({
      endpoint: 'search/resource',
      subject: { type: 'user', id: 'bob' },
      resource: { type: 'document', id: null },
      decision: true,
      reason: { search: 'resource', count: 1 },
    });
  });

  it('filters by decision and time, and pages newest first by cursor', async () => {
    for (const id of ['doc-1', 'doc-2', 'doc-3']) {
      await pdp.post('evaluation', { subject: { type: 'user', id: 'carol' }, action: { name: 'read' }, resource: { type: 'document', id } });
    }
    const all = await logged('?subjectId=carol', 3);
    expect(all.map((d) => (d.resource as { id: string }).id)).toEqual(['doc-3', 'doc-2', 'doc-1']);
    expect(await logged('?subjectId=carol&decision=false&resourceId=doc-3', 1)).toMatchObject([{ decision: false, reason: { permitted: false } }]);
    expect((await list('?subjectId=carol&decision=true')).body.decisions).toEqual([]);
    expect((await list('?subjectId=carol&until=2000-01-01T00:00:00Z')).body.decisions).toEqual([]);
    expect((await list('?subjectId=carol&since=2000-01-01T00:00:00Z')).body.decisions).toHaveLength(3);

    const first = (await list('?subjectId=carol&limit=2')).body;
    expect(first).toMatchObject({ decisions: all.slice(0, 2), hasMore: true, nextCursor: expect.any(String) });
    const second = (await list(`?subjectId=carol&limit=2&cursor=${first.nextCursor}`)).body;
    expect(second).toEqual({ decisions: all.slice(2), hasMore: false, nextCursor: null });
  });

  it.each([
    ['?decision=maybe', 'querystring.decision'],
    ['?since=yesterday', 'querystring.since'],
    ['?cursor=nope', 'querystring.cursor'],
    ['?unknown=1', 'querystring.unknown'],
  ])('400 for %s', async (query, path) => {
    const res = await list(query);
    expect(res).toMatchObject({ status: 400, body: { code: 'request.invalid', details: [expect.objectContaining({ path })] } });
  });

  it('403 without authzen:read', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/authzen/decisions`,
      headers: bearer(await t.token('directory:read')),
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('decision log writer', () => {
  const settings = { fullRate: 1000, sampleRate: 1, bufferMax: 10_000, retentionMs: 30 * 86_400_000 };
  const entry = (subjectId: string, decidedAt = new Date()): Omit<DecisionRecord, 'sampleRate'> => ({
    environmentId: pdp.environmentId,
    decidedAt,
    endpoint: 'evaluation',
    subject: { type: 'user', id: subjectId },
    action: 'read',
    resource: { type: 'document', id: 'doc-1' },
    decision: false,
    reason: {},
    requestId: null,
    apiSecretId: null,
    durationMicros: 1,
  });
  const count = (subjectId: string) =>
    t.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM authzen_decisions WHERE environment_id = ${pdp.environmentId} AND subject_id = ${subjectId}`);

  it('writes what it buffered on close', async () => {
    const log = createDecisionLog({ pool: t.pool, settings, warn: () => {} });
    for (let i = 0; i < 3; i++) log.record(entry('closing'));
    await log.close();
    expect(await count('closing')).toBe(3);
  });

  it('logs every decision up to the full rate each second, samples beyond it, and records the rate each row was kept at', async () => {
    const draws = [0.1, 0.6, 0.2, 0.9];
    const now = Date.now(); // one second throughout
    const log = createDecisionLog({
      pool: t.pool,
      settings: { ...settings, fullRate: 2, sampleRate: 0.5 },
      warn: () => {},
      random: () => draws.shift()!,
      now: () => now,
    });
    for (let i = 0; i < 6; i++) log.record(entry('sampled'));
    await log.close();
    const rates = await t.pool.anyFirst(
      sql.unsafe`SELECT sample_rate::float8 FROM authzen_decisions WHERE environment_id = ${pdp.environmentId} AND subject_id = 'sampled' ORDER BY seq`,
    );
    expect(rates).toEqual([1, 1, 0.5, 0.5]); // two in full, then two of the four draws under 0.5
    expect(draws).toEqual([]);
  });

  it('drops beyond its cap and warns once with the count', async () => {
    const warnings: unknown[] = [];
    const log = createDecisionLog({ pool: t.pool, settings: { ...settings, bufferMax: 2 }, warn: (details) => warnings.push(details) });
    for (let i = 0; i < 5; i++) log.record(entry('capped'));
    await log.close();
    expect(await count('capped')).toBe(2);
    expect(warnings).toEqual([{ dropped: 3 }]);
  });

  it('deletes rows older than the retention, at most once an hour', async () => {
    let now = Date.now();
    const log = createDecisionLog({ pool: t.pool, settings: { ...settings, retentionMs: 86_400_000 }, warn: () => {}, now: () => now });
    await log.flush(); // the first flush prunes
    log.record(entry('old', new Date(now - 2 * 86_400_000)));
    log.record(entry('recent', new Date(now - 3_600_000)));
    await log.flush();
    expect([await count('old'), await count('recent')]).toEqual([1, 1]); // within the hour: no second prune
    now += 3_600_000;
    await log.close();
    expect([await count('old'), await count('recent')]).toEqual([0, 1]);
  });
});
