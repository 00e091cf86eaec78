// AuthZEN decisions for non-human subjects (agent, workload, mcp_server): the trust-store entry whose subject is
// `subject.id` decides call_tool on an mcp_tool, with the reason naming the rule that decided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { hashOf, seedTrustStore } from '../helpers/trust-store-seed.ts';

let t: TestApp;
let pdp: Pdp;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  pdp = await authzenEnvironment(t, { users: [{ userName: 'alice' }] });
  Object.assign(
    ids,
    await seedTrustStore(t.pool, pdp.environmentId, [
      { subject: 'spiffe://example.com/agent/billing', kind: 'agent', allowedTools: ['search', 'refund'] },
      { subject: 'https://tools.example.com/mcp', kind: 'mcp_server', allowedTools: ['search'], manifestHash: hashOf('a') },
      { subject: 'spiffe://example.com/ns/jobs/sa/nightly', kind: 'workload', allowedTools: ['export'] },
      { subject: 'spiffe://example.com/agent/new', kind: 'agent', status: 'pending', allowedTools: ['search'] },
      { subject: 'spiffe://example.com/agent/paused', kind: 'agent', status: 'suspended', allowedTools: ['search'] },
      { subject: 'spiffe://example.com/agent/gone', kind: 'agent', status: 'revoked', allowedTools: ['search'] },
      { subject: 'spiffe://example.com/agent/none', kind: 'agent', allowedTools: null },
    ]),
  );
});
afterAll(() => t?.close());

const ask = async (type: string, subject: string, tool: string, extra: { action?: string; resourceType?: string; context?: object } = {}) => {
  const res = await pdp.post('evaluation', {
    subject: { type, id: subject },
    action: { name: extra.action ?? 'call_tool' },
    resource: { type: extra.resourceType ?? 'mcp_tool', id: tool },
    ...(extra.context ? { context: extra.context } : {}),
    options: { explain: true },
  });
  expect(res.status).toBe(200);
  return res.body as { decision: boolean; context: { reason: { permitted: boolean; code: string; message: string; entryId?: string } } };
};

describe('AuthZEN call_tool for trust-store subjects', () => {
  it('permits a verified entry a tool it is allowed, for each non-human subject type', async () => {
    for (const [type, subject, tool] of [
      ['agent', 'spiffe://example.com/agent/billing', 'refund'],
      ['mcp_server', 'https://tools.example.com/mcp', 'search'],
      ['workload', 'spiffe://example.com/ns/jobs/sa/nightly', 'export'],
    ] as const) {
      expect(await ask(type, subject, tool)).toEqual({
        decision: true,
        context: { reason: { permitted: true, code: 'trust_store.tool_allowed', message: expect.any(String), entryId: ids[subject] } },
      });
    }
  });

  it('denies with the rule that decided', async () => {
    const cases: [string, string, string, object, string][] = [
      ['agent', 'spiffe://example.com/agent/unknown', 'search', {}, 'trust_store.not_found'],
      ['agent', 'spiffe://example.com/agent/new', 'search', {}, 'trust_store.not_active'],
      ['agent', 'spiffe://example.com/agent/paused', 'search', {}, 'trust_store.not_active'],
      ['agent', 'spiffe://example.com/agent/gone', 'search', {}, 'trust_store.not_active'],
      ['agent', 'spiffe://example.com/agent/billing', 'delete_everything', {}, 'trust_store.tool_not_allowed'],
      ['agent', 'spiffe://example.com/agent/none', 'search', {}, 'trust_store.tool_not_allowed'],
      ['mcp_server', 'https://tools.example.com/mcp', 'search', { context: { manifestHash: hashOf('b') } }, 'trust_store.manifest_mismatch'],
      ['agent', 'spiffe://example.com/agent/billing', 'search', { context: { manifestHash: hashOf('a') } }, 'trust_store.manifest_mismatch'],
      ['agent', 'spiffe://example.com/agent/billing', 'search', { action: 'delete' }, 'unknown_action'],
      ['agent', 'spiffe://example.com/agent/billing', 'search', { resourceType: 'document' }, 'unknown_resource_type'],
    ];
    for (const [type, subject, tool, extra, code] of cases) {
      const answer = await ask(type, subject, tool, extra);
      expect(answer, `${subject} ${tool} ${JSON.stringify(extra)}`).toMatchObject({ decision: false, context: { reason: { permitted: false, code } } });
    }
  });

  it('permits when the observed manifest is the pinned one', async () => {
    const answer = await ask('mcp_server', 'https://tools.example.com/mcp', 'search', { context: { manifestHash: hashOf('a') } });
    expect(answer.decision).toBe(true);
  });

  it('leaves user subjects to the directory and roles', async () => {
    const res = await pdp.post('evaluation', {
      subject: { type: 'user', id: 'spiffe://example.com/agent/billing' },
      action: { name: 'call_tool' },
      resource: { type: 'mcp_tool', id: 'search' },
      options: { explain: true },
    });
    expect(res.body).toMatchObject({ decision: false, context: { reason: { code: 'unknown_subject' } } });
  });

  it('searches the entries of a kind that may call a tool', async () => {
    const search = (type: string, tool: string) =>
      pdp.post('search/subject', { subject: { type }, action: { name: 'call_tool' }, resource: { type: 'mcp_tool', id: tool } });
    expect((await search('agent', 'search')).body).toEqual({
      page: { next_token: '', count: 1 },
      results: [{ type: 'agent', id: 'spiffe://example.com/agent/billing' }],
    });
    expect((await search('mcp_server', 'search')).body).toMatchObject({ results: [{ type: 'mcp_server', id: 'https://tools.example.com/mcp' }] });
    expect((await search('workload', 'search')).body).toMatchObject({ results: [] });
  });

  it('answers batches', async () => {
    const res = await pdp.post('evaluations', {
      subject: { type: 'agent', id: 'spiffe://example.com/agent/billing' },
      action: { name: 'call_tool' },
      evaluations: [{ resource: { type: 'mcp_tool', id: 'search' } }, { resource: { type: 'mcp_tool', id: 'wire_money' } }],
    });
    expect(res.body).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
  });
});
