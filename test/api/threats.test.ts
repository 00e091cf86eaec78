// Threat records: manual create, every transition and refusal, triage with a validated assignee, notes, filters,
// events and audit entries, and isolation between environments and organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let otherEnvironmentId: string;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
  const { environmentIds } = await newEnvironments(t, token);
  [environmentId, otherEnvironmentId] = environmentIds as [string, string];
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/threats`;
});
afterAll(() => t?.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';
const api = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${url}`, headers: bearer(auth), ...(payload ? { payload } : {}) });

async function createThreat(body: object = {}) {
  const res = await api('POST', '', { severity: 'medium', subject: 'spiffe://example.com/agent/x', summary: 'Suspicious exfiltration', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().threat as Record<string, unknown> & { id: string };
}
const expectTransitionRefused = async (res: Awaited<ReturnType<typeof api>>, status: string) => {
  expect(res.statusCode, res.body).toBe(409);
  expect(res.json()).toMatchObject({ code: 'threat.invalid_transition', details: [{ path: 'status', message: `is ${status}` }] });
};

describe('threats', () => {
  it('records a manual threat, read back and audited with its event', async () => {
    const threat = await createThreat({ evidence: { ticket: 'SEC-1' } });
    expect(threat).toEqual({
      id: expect.any(String),
      environmentId,
      category: 'manual',
      severity: 'medium',
      status: 'open',
      subject: 'spiffe://example.com/agent/x',
      summary: 'Suspicious exfiltration',
      evidence: { ticket: 'SEC-1' },
      eventIds: [],
      occurrences: 1,
      firstSeenAt: expect.any(String),
      lastSeenAt: expect.any(String),
      assigneeId: null,
      notes: [],
      resolution: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api('GET', `/${threat.id}`)).json()).toEqual({ threat });
    const created = await tenantEvents(t, tenantId, { type: 'threat.created', environmentId });
    expect(created.find((e) => e.subject?.id === threat.id)).toMatchObject({ data: { threat }, subject: { type: 'threat', id: threat.id } });
    expect(await auditEntries(t, { tenantId }, { resourceId: threat.id })).toMatchObject([
      { action: 'threat.create', resource: { type: 'threat', id: threat.id } },
    ]);
  });

  it('refuses a category other than manual and unknown fields', async () => {
    const res = await api('POST', '', { category: 'mcp.unknown_subject', severity: 'low', subject: 's', summary: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('body.category');
    const unknown = await api('POST', '', { severity: 'low', subject: 's', summary: 'x', colour: 'red' });
    expect(unknown.json().details).toEqual([{ path: 'body.colour', message: 'is not a known field' }]);
  });

  it('triages: open ↔ investigating, severity, an assignee of the environment or an operator', async () => {
    const threat = await createThreat();
    const user = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`,
      headers: bearer(token),
      payload: { userName: `analyst-${crypto.randomUUID()}@example.com` },
    });
    const userId = user.json().user.id as string;
    const investigating = await api('PATCH', `/${threat.id}`, { status: 'investigating', severity: 'high', assigneeId: userId });
    expect(investigating.statusCode, investigating.body).toBe(200);
    expect(investigating.json().threat).toMatchObject({ status: 'investigating', severity: 'high', assigneeId: userId });
    expect((await api('PATCH', `/${threat.id}`, { status: 'open', assigneeId: null })).json().threat).toMatchObject({ status: 'open', assigneeId: null });

    const operators = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${t.credentials.tenantId}/environments/${t.credentials.environmentId}/directory/users`,
      headers: bearer(token),
    });
    const operatorId = operators.json().users[0].id as string;
    expect((await api('PATCH', `/${threat.id}`, { assigneeId: operatorId })).json().threat.assigneeId).toBe(operatorId);
    const stranger = await api('PATCH', `/${threat.id}`, { assigneeId: crypto.randomUUID() });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json().details).toEqual([{ path: 'body.assigneeId', message: 'is not a directory user of this environment or an operator' }]);
    const resolvedStatus = await api('PATCH', `/${threat.id}`, { status: 'resolved' });
    expect(resolvedStatus.statusCode).toBe(400);

    const updates = await tenantEvents(t, tenantId, { type: 'threat.updated', environmentId });
    expect(updates.filter((e) => e.subject?.id === threat.id).map((e) => e.data.change)).toEqual(['triage', 'triage', 'triage']);
  });

  it('takes notes, on closed threats too', async () => {
    const threat = await createThreat();
    const res = await api('POST', `/${threat.id}/notes`, { text: 'Looked at the logs.' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().threat.notes).toEqual([
      {
        id: expect.any(String),
        author: { type: 'service_account', id: expect.any(String) },
        authorId: expect.any(String),
        text: 'Looked at the logs.',
        createdAt: expect.any(String),
      },
    ]);
    await api('POST', `/${threat.id}/dismiss`, { reason: 'false positive' });
    expect((await api('POST', `/${threat.id}/notes`, { text: 'Confirmed.' })).json().threat.notes).toHaveLength(2);
    expect((await api('POST', `/${threat.id}/notes`, { text: '  ' })).statusCode).toBe(400);
  });

  it('resolves, dismisses and reopens, refusing every illegal transition with the current status', async () => {
    const threat = await createThreat();
    expect((await api('POST', `/${threat.id}/resolve`, {})).statusCode).toBe(400);
    await expectTransitionRefused(await api('POST', `/${threat.id}/reopen`), 'open');

    const resolved = await api('POST', `/${threat.id}/resolve`, { reason: 'Key rotated' });
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(resolved.json().threat).toMatchObject({
      status: 'resolved',
      resolution: { outcome: 'resolved', reason: 'Key rotated', by: { type: 'service_account' }, at: expect.any(String) },
    });
    await expectTransitionRefused(await api('POST', `/${threat.id}/resolve`, { reason: 'again' }), 'resolved');
    await expectTransitionRefused(await api('POST', `/${threat.id}/dismiss`, { reason: 'again' }), 'resolved');
    await expectTransitionRefused(await api('PATCH', `/${threat.id}`, { status: 'investigating' }), 'resolved');
    await expectTransitionRefused(await api('PATCH', `/${threat.id}`, { severity: 'low' }), 'resolved');

    const reopened = await api('POST', `/${threat.id}/reopen`);
    expect(reopened.json().threat).toMatchObject({ status: 'open', resolution: null });
    expect((await api('PATCH', `/${threat.id}`, { status: 'investigating' })).statusCode).toBe(200);
    const dismissed = await api('POST', `/${threat.id}/dismiss`, { reason: 'Accepted risk' });
    expect(dismissed.json().threat).toMatchObject({ status: 'dismissed', resolution: { outcome: 'dismissed', reason: 'Accepted risk' } });
    await expectTransitionRefused(await api('POST', `/${threat.id}/dismiss`, { reason: 'again' }), 'dismissed');

    const mine = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => (e.data.threat as { id?: string } | undefined)?.id === threat.id);
    expect(mine.map((e) => [e.type, e.data.outcome ?? null])).toEqual([
      ['threat.created', null],
      ['threat.resolved', 'resolved'],
      ['threat.reopened', null],
      ['threat.updated', null],
      ['threat.resolved', 'dismissed'],
    ]);
    const actions = (await auditEntries(t, { tenantId }, { resourceId: threat.id })).map((e) => e.action);
    expect(actions).toEqual(['threat.create', 'threat.resolve', 'threat.reopen', 'threat.update', 'threat.dismiss']);
  });

  it('filters by status, severity, category, subject, assignee and time, one page at a time', async () => {
    const { environmentIds } = await newEnvironments(t, token);
    const url = `/v1/tenants/${tenantId}/environments/${environmentIds[0]!}/threats`;
    const list = async (query: Record<string, string>) => {
      const res = await t.app.inject({ method: 'GET', url, query, headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { threats: { id: string }[]; total: number; nextCursor: string | null; hasMore: boolean };
    };
    const make = async (severity: string, subject: string) =>
      (await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { severity, subject, summary: 's' } })).json().threat.id as string;
    const low = await make('low', 'a');
    const high = await make('high', 'b');
    const critical = await make('critical', 'b');
    await t.app.inject({ method: 'POST', url: `${url}/${low}/resolve`, headers: bearer(token), payload: { reason: 'done' } });

    expect((await list({ severity: 'high' })).threats.map((x) => x.id)).toEqual([high]);
    expect((await list({ status: 'resolved' })).threats.map((x) => x.id)).toEqual([low]);
    expect((await list({ subject: 'b' })).total).toBe(2);
    expect((await list({ category: 'manual' })).total).toBe(3);
    expect((await list({ category: 'mcp.tool_not_allowed' })).total).toBe(0);
    expect((await list({ assigneeId: crypto.randomUUID() })).total).toBe(0);
    expect((await list({ since: '2000-01-01T00:00:00Z', until: '2999-01-01T00:00:00Z' })).total).toBe(3);
    expect((await list({ since: '2999-01-01T00:00:00Z' })).total).toBe(0);
    const first = await list({ limit: '2' });
    expect(first).toMatchObject({ total: 3, hasMore: true });
    const second = await list({ limit: '2', cursor: first.nextCursor! });
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(new Set([...first.threats, ...second.threats].map((x) => x.id))).toEqual(new Set([low, high, critical]));
  });

  it('is 404 from another environment and another organization, and needs the threats scopes', async () => {
    const threat = await createThreat();
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${tenantId}/environments/${otherEnvironmentId}/threats/${threat.id}`,
      headers: bearer(token),
    });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().code).toBe('threat.not_found');
    const other = await otherOrganization(t);
    expect((await api('GET', `/${threat.id}`, undefined, other.token)).statusCode).toBe(404);
    const reader = await t.token('threats:read');
    expect((await api('GET', `/${threat.id}`, undefined, reader)).statusCode).toBe(200);
    const refused = await api('POST', `/${threat.id}/notes`, { text: 'x' }, reader);
    expect(refused.statusCode).toBe(403);
  });
});
