// MCP trust-store entries: registered per environment with a subject valid for their kind, changed (allowed tools,
// manifest pin, status), revoked for good and deleted, each with its event and audit entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { keyPair, trustStoreEnvironment } from '../helpers/trust-store.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof trustStoreEnvironment>>;

beforeAll(async () => {
  t = await startTestApp();
  env = await trustStoreEnvironment(t);
});
afterAll(() => t.close());

const HASH = `sha256:${'a'.repeat(64)}`;

describe('trust-store entries', () => {
  it('registers an agent and reads it back with its (empty) keys', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'spiffe://example.org/agents/billing', name: 'Billing agent', allowedTools: ['invoices.read'] });
    expect(entry).toEqual({
      id: expect.any(String),
      environmentId: env.environmentId,
      kind: 'agent',
      subject: 'spiffe://example.org/agents/billing',
      name: 'Billing agent',
      description: null,
      ownerId: null,
      status: 'pending',
      allowedTools: ['invoices.read'],
      toolManifestHash: null,
      manifestPinnedAt: null,
      metadata: {},
      verifiedAt: null,
      revokedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const read = await env.call('GET', `/${entry.id}`);
    expect(read.status).toBe(200);
    expect(read.body.entry).toEqual({ ...entry, keys: [] });
    const events = await tenantEvents(t, env.tenantId, { type: 'mcp.trust_store.entry.created' });
    expect(events.map((e) => e.data.entry)).toContainEqual(entry);
  });

  it('validates the subject per kind, the tool names, the manifest hash and the owner', async () => {
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await env.call('POST', '', { kind: 'agent', subject: 'client-1', name: 'x', ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details[0].path).toBe(path);
    };
    await bad({ kind: 'mcp_server', subject: 'ftp://tools.example.com' }, 'body.subject');
    await bad({ kind: 'mcp_server', subject: 'https://user:pw@tools.example.com/mcp' }, 'body.subject');
    await bad({ subject: 'spiffe://Example.org/x' }, 'body.subject');
    await bad({ subject: 'client\u0007one' }, 'body.subject');
    await bad({ subject: 'x'.repeat(2049) }, 'body.subject');
    await bad({ allowedTools: ['has space'] }, 'body.allowedTools.0');
    await bad({ allowedTools: ['a'.repeat(129)] }, 'body.allowedTools.0');
    await bad({ toolManifestHash: 'sha256:XYZ' }, 'body.toolManifestHash');
    await bad({ ownerId: crypto.randomUUID() }, 'body.ownerId');
    await bad({ metadata: { big: 'x'.repeat(17_000) } }, 'body.metadata');
    await bad({ surprise: true }, 'body.surprise');
  });

  it('pins a manifest at creation, owned by a directory user of the environment', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users`,
      headers: { authorization: `Bearer ${env.token}` },
      payload: { userName: 'owner@example.com' },
    });
    const ownerId = res.json().user.id as string;
    const entry = await env.create({ kind: 'mcp_server', subject: 'https://tools.example.com/mcp', toolManifestHash: HASH, ownerId });
    expect(entry).toMatchObject({ ownerId, toolManifestHash: HASH, manifestPinnedAt: expect.any(String) });
  });

  it('refuses a second entry with the same subject, also when created concurrently', async () => {
    const subject = 'client-duplicate';
    const answers = await Promise.all([1, 2, 3].map(() => env.call('POST', '', { kind: 'workload', subject, name: 'Dup' })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('trust_store.subject_taken');
  });

  it('lists entries one page at a time, filtered by kind, status and subject', async () => {
    const e = await trustStoreEnvironment(t);
    for (const i of [1, 2, 3]) await e.create({ kind: i === 3 ? 'workload' : 'agent', subject: `agent-${i}` });
    const first = await e.call('GET', '?limit=2');
    expect(first.body).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.body.entries.map((x: { subject: string }) => x.subject)).toEqual(['agent-1', 'agent-2']);
    const second = await e.call('GET', `?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ total: 3, hasMore: false, nextCursor: null });
    expect(second.body.entries.map((x: { subject: string }) => x.subject)).toEqual(['agent-3']);
    expect((await e.call('GET', '?kind=workload')).body.entries.map((x: { subject: string }) => x.subject)).toEqual(['agent-3']);
    expect((await e.call('GET', '?subject=agent-2')).body.total).toBe(1);
    expect((await e.call('GET', '?status=verified')).body.total).toBe(0);
    expect((await e.call('GET', '?kind=robot')).status).toBe(400);
  });

  it('changes tools, pins and unpins the manifest, suspends and resumes, each with its event', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'agent-patch' });
    const patch = (body: object) => env.call('PATCH', `/${entry.id}`, body);
    const tools = await patch({ allowedTools: ['search', 'fetch'], description: 'Searches' });
    expect(tools.body.entry).toMatchObject({ allowedTools: ['search', 'fetch'], description: 'Searches' });
    const pinned = await patch({ toolManifestHash: HASH });
    expect(pinned.body.entry).toMatchObject({ toolManifestHash: HASH, manifestPinnedAt: expect.any(String) });
    const suspended = await patch({ status: 'suspended' });
    expect(suspended.body.entry.status).toBe('suspended');
    const unpinned = await patch({ toolManifestHash: null, status: 'pending' });
    expect(unpinned.body.entry).toMatchObject({ toolManifestHash: null, manifestPinnedAt: null, status: 'pending' });
    const unchanged = await patch({ status: 'pending' });
    expect(unchanged.body.entry.updatedAt).toBe(unpinned.body.entry.updatedAt);
    const never = await patch({ status: 'verified' });
    expect(never).toMatchObject({ status: 409, body: { code: 'trust_store.not_verified' } });
    expect((await patch({ status: 'revoked' })).status).toBe(400);

    const events = (await tenantEvents(t, env.tenantId)).filter((e) => (e.data.entry as { id?: string } | undefined)?.id === entry.id);
    expect(events.map((e) => e.type)).toEqual([
      'mcp.trust_store.entry.created',
      'mcp.trust_store.entry.updated',
      'mcp.trust_store.manifest.pinned',
      'mcp.trust_store.entry.suspended',
      'mcp.trust_store.entry.updated',
    ]);
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { resourceId: entry.id });
    expect(audit.map((a) => a.action)).toEqual([
      'mcp.trust_store.entry.create',
      'mcp.trust_store.entry.update',
      'mcp.trust_store.entry.pin',
      'mcp.trust_store.entry.suspend',
      'mcp.trust_store.entry.update',
    ]);
  });

  it('revokes for good: every later change is 409, revoking again changes nothing, deleting still works', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'agent-revoked' });
    const revoked = await env.call('POST', `/${entry.id}/revoke`);
    expect(revoked.body.entry).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    expect((await env.call('POST', `/${entry.id}/revoke`)).body.entry).toEqual(revoked.body.entry);
    for (const [method, path, body] of [
      ['PATCH', '', { name: 'Again' }],
      ['POST', '/keys', { jwk: (await keyPair()).jwk }],
      ['POST', '/verify/challenge', undefined],
      ['POST', '/verify', {}],
    ] as const) {
      const res = await env.call(method, `/${entry.id}${path}`, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.code).toBe('trust_store.revoked');
    }
    expect(await env.call('DELETE', `/${entry.id}`)).toMatchObject({ status: 200, body: { success: true, id: entry.id } });
    expect((await env.call('GET', `/${entry.id}`)).status).toBe(404);
    const types = (await tenantEvents(t, env.tenantId)).filter((e) => (e.data.entry as { id?: string } | undefined)?.id === entry.id).map((e) => e.type);
    expect(types).toEqual(['mcp.trust_store.entry.created', 'mcp.trust_store.entry.revoked', 'mcp.trust_store.entry.deleted']);
  });

  it('answers 404 for an entry of another environment and needs the mcp-trust-store scopes', async () => {
    const other = await trustStoreEnvironment(t);
    const entry = await other.create({ kind: 'agent', subject: 'elsewhere' });
    expect((await env.call('GET', `/${entry.id}`)).status).toBe(404);
    expect((await env.call('PATCH', `/${entry.id}`, { name: 'x' })).status).toBe(404);
    const readOnly = await t.token('mcp-trust-store:read');
    expect((await env.call('GET', '', undefined, readOnly)).status).toBe(200);
    expect((await env.call('POST', '', { kind: 'agent', subject: 'ro', name: 'x' }, readOnly)).status).toBe(403);
    expect((await env.call('GET', '', undefined, await t.token('directory:read'))).status).toBe(403);
  });
});
