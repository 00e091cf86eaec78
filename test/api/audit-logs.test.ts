import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChange } from '../../db/shared/changes.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

interface Entry {
  id: string;
  sequence: number;
  action: string;
  tenantId: string | null;
  organizationId: string | null;
  resource: { type: string; id: string | null };
  occurredAt: string;
}
interface Page {
  auditLogs: Entry[];
  nextCursor: string | null;
  hasMore: boolean;
}

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(() => t.close());

const newTenant = async (name: string, auth = token) =>
  (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(auth), payload: { name } })).json().tenant as { id: string };
const get = (url: string, headers: Record<string, string> = bearer(token)) => t.app.inject({ method: 'GET', url, headers });
const list = async (url: string) => {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
};
const actions = async (url: string) => (await list(url)).auditLogs.map((e) => e.action);

/** An audit entry scoped to a tenant only (no organization), as environment-level changes are. */
const audit = (tenantId: string, action: string, actorId = 'tester') =>
  t.pool.transaction((trx) =>
    recordChange(trx, {
      actor: { type: 'system', id: actorId },
      action,
      resource: { type: 'widget', id: action },
      scope: { tenantId },
      event: { type: 'webhook.test', data: { message: action } },
    }),
  );

describe('GET /v1/tenants/{tenantId}/audit-logs', () => {
  it('lists entries newest first in the documented shape', async () => {
    const tenant = await newTenant('audited');
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/tenants/${tenant.id}`,
      headers: { ...bearer(token), 'x-request-id': 'req-audit-1', 'user-agent': 'audit-test/1' },
      payload: { description: 'changed' },
    });
    const { auditLogs, nextCursor } = await list(`/v1/tenants/${tenant.id}/audit-logs`);
    expect(nextCursor).toBeNull();
    expect(auditLogs.map((e) => e.action)).toEqual(['tenant.update', 'tenant.create']);
    expect(auditLogs[0]).toEqual({
      id: expect.any(String),
      sequence: expect.any(Number),
      organizationId: t.credentials.organizationId,
      tenantId: tenant.id,
      environmentId: null,
      actor: { type: 'service_account', id: expect.any(String) },
      onBehalfOf: null,
      action: 'tenant.update',
      resource: { type: 'tenant', id: tenant.id },
      ip: '127.0.0.1',
      userAgent: 'audit-test/1',
      requestId: 'req-audit-1',
      changes: { before: { description: null, updatedAt: expect.any(String) }, after: { description: 'changed', updatedAt: expect.any(String) } },
      occurredAt: expect.stringMatching(/Z$/),
    });
    expect(auditLogs[0]!.sequence).toBeGreaterThan(auditLogs[1]!.sequence);
  });

  it('filters by actor, action, resource and time range', async () => {
    const tenant = await newTenant('filtered');
    await audit(tenant.id, 'widget.create', 'alice');
    await audit(tenant.id, 'widget.update', 'bob');
    const base = `/v1/tenants/${tenant.id}/audit-logs`;
    expect(await actions(`${base}?actorId=alice`)).toEqual(['widget.create']);
    expect(await actions(`${base}?actorType=system`)).toEqual(['widget.update', 'widget.create']);
    expect(await actions(`${base}?actorType=service_account`)).toEqual(['tenant.create']);
    expect(await actions(`${base}?action=widget.update`)).toEqual(['widget.update']);
    expect(await actions(`${base}?resourceType=tenant&resourceId=${tenant.id}`)).toEqual(['tenant.create']);
    expect(await actions(`${base}?resourceType=widget&resourceId=widget.create`)).toEqual(['widget.create']);
    const all = (await list(base)).auditLogs;
    const at = encodeURIComponent(all[1]!.occurredAt);
    expect((await list(`${base}?occurredAfter=${at}`)).auditLogs.map((e) => e.id)).toContain(all[1]!.id);
    expect((await list(`${base}?occurredBefore=${at}`)).auditLogs.map((e) => e.id)).not.toContain(all[1]!.id);
    const bad = await get(`${base}?actorType=robot&cursor=zzz`);
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['querystring.actorType', 'querystring.cursor']);
  });

  it('pages with an opaque cursor until nextCursor is null', async () => {
    const tenant = await newTenant('paged');
    for (let i = 0; i < 4; i++) await audit(tenant.id, `widget.step${i}`);
    const seen: string[] = [];
    let cursor: string | null = '';
    const cursors: (string | null)[] = [];
    const hasMore: boolean[] = [];
    while (cursor !== null) {
      const page: Page = await list(`/v1/tenants/${tenant.id}/audit-logs?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.auditLogs.map((e) => e.action));
      cursors.push((cursor = page.nextCursor));
      hasMore.push(page.hasMore);
    }
    expect(seen).toEqual(['widget.step3', 'widget.step2', 'widget.step1', 'widget.step0', 'tenant.create']);
    expect(cursors.map((c) => c === null)).toEqual([false, false, true]);
    expect(hasMore).toEqual([true, true, false]);
  });

  it('hides tenants the caller cannot reach', async () => {
    const other = await otherOrganization(t);
    const theirs = await newTenant('theirs', other.token);
    expect((await get(`/v1/tenants/${theirs.id}/audit-logs`)).json().code).toBe('tenant.not_found');
    expect((await get(`/v1/tenants/${theirs.id}/audit-logs`, bearer(other.token))).statusCode).toBe(200);
    expect((await get(`/v1/tenants/${theirs.id}/audit-logs`, bearer(await t.token('events:read')))).statusCode).toBe(403);
  });
});

describe('GET /v1/organizations/{organizationId}/audit-logs', () => {
  it("holds the organization's own entries and those of its tenants, and nobody else's", async () => {
    const other = await otherOrganization(t);
    const mine = await newTenant('org-mine');
    await audit(mine.id, 'widget.tenant_only');
    const theirs = await newTenant('org-theirs', other.token);
    await audit(theirs.id, 'widget.theirs');
    const base = `/v1/organizations/${t.credentials.organizationId}/audit-logs?limit=200`;
    const entries = await auditEntries(t, { organizationId: t.credentials.organizationId }); // every page: other tests add entries too
    expect(entries.find((e) => e.action === 'widget.tenant_only')).toMatchObject({ organizationId: null, tenantId: mine.id });
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['service_account.create', 'organization.create', 'tenant.create']));
    expect(entries.some((e) => e.tenantId === theirs.id || e.action === 'widget.theirs')).toBe(false);
    expect((await list(`${base}&action=widget.tenant_only`)).auditLogs).toHaveLength(1);
    const foreign = await get(`/v1/organizations/${other.organizationId}/audit-logs`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('organization.not_found');
  });
});

describe('Accept: application/x-ndjson', () => {
  it('streams the whole filtered log, newest first, one JSON entry per line', async () => {
    const tenant = await newTenant('export');
    await t.pool.query(sql.unsafe`
      INSERT INTO audit_logs (tenant_id, actor_type, actor_id, action, resource_type, resource_id, changes)
      SELECT ${tenant.id}, 'system', 'bulk', 'widget.bulk', 'widget', i::text, jsonb_build_object('before', null, 'after', jsonb_build_object('i', i))
      FROM generate_series(1, 1234) i`);
    const url = `/v1/tenants/${tenant.id}/audit-logs`;
    const res = await get(`${url}?limit=3`, { ...bearer(token), accept: 'application/x-ndjson' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.body.endsWith('\n')).toBe(true);
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
    expect(lines).toHaveLength(1235);
    expect(new Set(lines.map((e) => e.id)).size).toBe(1235);
    expect(lines[0]!.resource).toEqual({ type: 'widget', id: '1234' });
    expect(lines.at(-1)!.action).toBe('tenant.create');
    expect(lines.every((e, i) => i === 0 || e.sequence < lines[i - 1]!.sequence)).toBe(true);

    const filtered = await get(`${url}?action=tenant.create`, { ...bearer(token), accept: 'application/x-ndjson' });
    expect(
      filtered.body
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).action),
    ).toEqual(['tenant.create']);
    const other = await otherOrganization(t);
    const hidden = await get(url, { ...bearer(other.token), accept: 'application/x-ndjson' });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().code).toBe('tenant.not_found');
  });
});
